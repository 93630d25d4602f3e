/// \file task.hpp
/// \brief Chapter 11: a task to train on and test — its vocabularies, its training batches, its
/// held-out batches and its default model — for the three data sets of chapter 02 (copy,
/// translate, vowels) and for grapheme-to-phoneme conversion (pronounce), and decoding the way
/// each task wants it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tfm/data/dataset.hpp"
#include "tfm/data/pronunciations.hpp"
#include "tfm/data/vocabulary.hpp"
#include "tfm/data/vowel_restoration.hpp"
#include "tfm/model/config.hpp"
#include "tfm/model/transformer.hpp"

namespace tfm {

/// What training and testing need from a task.
struct Task {
  /// A task with these names and vocabularies; make_task fills in the rest.
  Task(std::string task_name, Vocabulary source, Vocabulary target)
      : name(std::move(task_name)), src_vocabulary(std::move(source)), tgt_vocabulary(std::move(target)) {}

  std::string name;           ///< "copy", "translate", "vowels" or "pronounce"
  Vocabulary src_vocabulary;  ///< what the encoder reads
  Vocabulary tgt_vocabulary;  ///< what the decoder writes
  std::size_t src_len = 0;    ///< columns of a source batch
  std::size_t tgt_len = 0;    ///< columns of a target batch (`<bos>` / `<eos>` included)
  /// The task's default model: a preset, sized to the vocabularies and lengths by fit().
  Config model;
  std::size_t default_steps = 0;  ///< the default training budget, in steps
  std::vector<Batch> held_out;    ///< the batches of the held-out loss
  /// Training batch number `index` (0, 1, 2, ...) of `batch_size` sequences, of the run seeded
  /// with `seed` (copy: the symbols are drawn from it; vowels: the order of the windows). The same
  /// arguments give the same batch whatever was asked before, so a run resumed after step S goes
  /// on with batch S exactly as an uninterrupted run would.
  std::function<Batch(std::size_t index, std::size_t batch_size, std::uint64_t seed)> training_batch;
  /// vowels: the text, cut into windows (null for the other tasks).
  std::shared_ptr<const VowelRestoration> vowels;
  /// pronounce: the dictionary, split by word (null for the other tasks).
  std::shared_ptr<const PronunciationData> pronunciations;

  /// `config` with what the data decides: the vocabulary sizes and the sequence lengths.
  Config fit(Config config) const;
  /// The keys of tfm::Config that fit() sets (a `--set` of them would be overwritten).
  static const std::vector<std::string>& data_keys();
};

/// The names make_task knows, in the order `--help` lists them.
const std::vector<std::string>& task_names();

/// Builds a task; `corpus` is the vowels task's text, `dictionary` the pronounce task's Festival
/// lexicon. Throws std::invalid_argument naming the task for an unknown name, and whatever
/// VowelRestoration::from_file or read_festival_lexicon throws for data that cannot be used. The
/// held-out batches never depend on a seed: every run is tested alike.
Task make_task(const std::string& name, const std::string& corpus = kDefaultCorpusPath,
               const std::string& dictionary = kCmudictPath);

/// Does `id` end a decoded row's text (`<eos>` or `<pad>`)?
inline bool ends_text(std::int32_t id) { return id == kEosId || id == kPadId; }
/// The text of row `row` of `tokens`, cut where it ends (ends_text).
std::string decoded_text(const Vocabulary& vocabulary, const TokenIds& tokens, std::size_t row);
/// Does row `row` of `tokens` end (ends_text) before its last column runs out?
bool row_ended(const TokenIds& tokens, std::size_t row);

/// Decodes src `[B, S]` as the task wants: greedy decoding (`beam` = 1) or beam search with
/// `beam` beams, both with the key/value cache. For vowels the output has the input's length,
/// and with `keep_letters` every letter the input shows is kept and every `*` becomes a vowel;
/// the other tasks decode up to the model's tgt_len and stop at `<eos>` (pronounce: choosing only
/// among the phonemes and `<eos>`).
TokenIds decode(Transformer& model, const Task& task, const TokenIds& src, std::size_t beam,
                bool keep_letters);

}  // namespace tfm
