/// \file toy_translation.hpp
/// \brief Task (chapter 02): the two German -> English sentence pairs of reference 001 (nlp-tutorial).
///
/// nlp-tutorial writes its padding, start and end symbols into the sentences as `P`, `S` and
/// `E`; here they are the reserved ids `<pad>` (0), `<bos>` (1) and `<eos>` (2) of every
/// Vocabulary, and the sentences hold only words:
///
/// | nlp-tutorial            | here                                   |
/// |-------------------------|----------------------------------------|
/// | `ich mochte ein bier P` | src     `ich mochte ein bier <pad>`    |
/// | `S i want a beer .`     | tgt_in  `<bos> i want a beer .`        |
/// | `i want a beer . E`     | tgt_out `i want a beer . <eos>`        |
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tfm/data/dataset.hpp"
#include "tfm/data/vocabulary.hpp"

namespace tfm {

/// One source sentence and its translation, words separated by spaces.
struct SentencePair {
  std::string source;  ///< what the encoder reads, e.g. `ich mochte ein bier`
  std::string target;  ///< the translation, without `<bos>`/`<eos>`, e.g. `i want a beer .`
};

/// A handful of sentence pairs with word vocabularies of their own for each side.
class ToyTranslation {
 public:
  /// nlp-tutorial's data: the two pairs, its word lists in its order, src_len 5, tgt_len 6.
  ToyTranslation();
  /// Any pairs: every word must be in its side's vocabulary (VocabularyError otherwise), a
  /// source must fit in src_len words and a target, plus `<bos>`/`<eos>`, in tgt_len.
  ToyTranslation(std::vector<SentencePair> pairs, Vocabulary source_vocabulary,
                 Vocabulary target_vocabulary, std::size_t src_len, std::size_t tgt_len);

  /// Number of sentence pairs.
  std::size_t size() const { return pairs_.size(); }
  /// Pair `i` as given; throws std::out_of_range for i >= size().
  const SentencePair& pair(std::size_t i) const { return pairs_.at(i); }
  /// The words of each side: the source's for the encoder's embedding, the target's for the
  /// decoder's embedding and the output projection.
  ///@{
  const Vocabulary& source_vocabulary() const { return source_vocabulary_; }
  const Vocabulary& target_vocabulary() const { return target_vocabulary_; }
  ///@}
  /// Padded lengths: columns of `src`, and of `tgt_in` / `tgt_out` (which count `<bos>`/`<eos>`).
  ///@{
  std::size_t src_len() const { return src_len_; }
  std::size_t tgt_len() const { return tgt_len_; }
  ///@}

  /// The pairs `indices`, in that order, padded with `<pad>`:
  /// src `[n, src_len]`, tgt_in `[n, tgt_len]` (`<bos>` + target), tgt_out `[n, tgt_len]`
  /// (target + `<eos>`).
  Batch batch(const std::vector<std::size_t>& indices) const;
  /// Every pair, in order (nlp-tutorial's one batch).
  Batch all() const;

 private:
  std::vector<SentencePair> pairs_;
  Vocabulary source_vocabulary_, target_vocabulary_;
  std::size_t src_len_, tgt_len_;
};

}  // namespace tfm
