/// \file translator.hpp
/// \brief The translation project: turning many source texts into translations with a trained
/// model — greedy decoding or beam search with GNMT's length penalty (the paper's beam 4,
/// α = 0.6), in batches of similar lengths, with the key/value cache.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "tfm/model/transformer.hpp"
#include "translate/translation_data.hpp"

namespace translate {

/// How to decode.
struct DecodingChoice {
  std::size_t beam = 4;  ///< 1: greedy decoding; else beam search with this many beams
  float alpha = 0.6f;    ///< the length penalty's α (beam search only)
  std::size_t sources_per_batch = 32;  ///< source texts decoded together (times `beam` rows)
};

/// The subwords of the translations of src `[B, S]` (ids of the shared vocabulary) -> `[B, T]`:
/// up to twice the source's length plus 10, at most the model's positional table.
tfm::TokenIds translation_tokens(tfm::Transformer& model, const tfm::TokenIds& src,
                                 const DecodingChoice& choice);

/// The translation of every text of `sources`, in order. Texts are decoded in batches of similar
/// lengths; a translation may run to twice its source's subwords plus 10, at most the model's
/// positional table. Throws std::invalid_argument for a text with nothing to translate.
std::vector<std::string> translate_texts(tfm::Transformer& model, const TranslationData& data,
                                         const std::vector<std::string>& sources,
                                         const DecodingChoice& choice);

/// "the tokenizer never saw 'ñ' in training: it becomes <unk>", or "" if it knows every
/// character of `text`.
std::string unknown_characters_note(const TranslationData& data, const std::string& text);

/// `--translate -`: every line of `in` translated by tfm::answer_lines (on standard output and
/// error, with a note naming the characters the tokenizer never saw), the attention maps of the
/// last text written into `attention_dir` (unless empty). Returns the number of lines refused.
std::size_t translate_lines(std::istream& in, tfm::Transformer& model, const TranslationData& data,
                            const DecodingChoice& choice, const std::string& attention_dir);

}  // namespace translate
