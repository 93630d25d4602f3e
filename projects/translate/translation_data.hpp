/// \file translation_data.hpp
/// \brief The translation project: the verse pairs as token ids — one subword vocabulary for
/// both languages, and training batches of similar lengths, padded only to their own longest.
///
/// **One vocabulary.** The tokenizer is learnt on the training verses of both languages together
/// (as the paper's shared source-target vocabulary of 37,000 byte pairs for English-German):
/// names (David, Moab), numbers and punctuation are spelt alike in both, and one table of
/// symbols is what the paper's shared embedding and pre-softmax weights (§3.4) need.
///
/// **Batches by tokens.** A verse has from 2 to about 150 subword tokens, so a batch is filled to
/// a number of tokens rather than of verses (the paper's batches held about 25,000 source and
/// 25,000 target tokens): an epoch shuffles the training pairs, cuts them into chunks, sorts a
/// chunk by length, cuts it into batches of at most `batch_tokens` tokens (rows times the longest
/// row, source or target, so padding counts) and shuffles the batches. Each batch is padded to
/// its own longest source and target only.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tfm/data/dataset.hpp"
#include "tfm/data/vocabulary.hpp"
#include "translate/bpe.hpp"
#include "translate/verse_split.hpp"

namespace translate {

/// Which way the model translates.
enum class Direction { kSpanishToEnglish, kEnglishToSpanish };
/// "es-en" or "en-es".
const char* direction_name(Direction direction);
/// The direction named "es-en" or "en-es"; throws std::invalid_argument naming the text otherwise.
Direction parse_direction(const std::string& name);

/// A verse's source and target as token ids (no `<bos>` / `<eos>`).
struct EncodedPair {
  std::vector<std::int32_t> source;  ///< the subwords of the source text
  std::vector<std::int32_t> target;  ///< the subwords of the target text
};

/// The verse pairs of every part, tokenized, and the batches the model trains on.
class TranslationData {
 public:
  /// Learns a tokenizer of `symbols` symbols on the training verses, then encodes every part.
  /// Training pairs with more than `longest` tokens on either side are left out of training
  /// (counted in summary()); every dev, test and book verse is kept.
  TranslationData(SplitVerses parts, Direction direction, std::size_t symbols, std::size_t longest);
  /// The same with a tokenizer learnt before (a checkpoint's).
  TranslationData(SplitVerses parts, Direction direction, Bpe tokenizer, std::size_t longest);

  /// Which way the pairs go.
  Direction direction() const { return direction_; }
  /// The tokenizer, learnt on the training verses of both languages.
  const Bpe& tokenizer() const { return tokenizer_; }
  /// Its symbols as the model's vocabulary (the same for source and target).
  const tfm::Vocabulary& vocabulary() const { return vocabulary_; }
  /// The verses of a part, in canon order.
  const std::vector<ParallelVerse>& verses(Part part) const {
    return parts_[static_cast<int>(part)];
  }
  /// The source (or target) side of a verse in this direction.
  const std::string& source_text(const ParallelVerse& verse) const;
  const std::string& target_text(const ParallelVerse& verse) const;  ///< see source_text
  /// The encoded pairs of a part (training: only those within `longest`).
  const std::vector<EncodedPair>& pairs(Part part) const {
    return encoded_[static_cast<int>(part)];
  }
  /// The longest source or target, in tokens, over every verse kept (`<eos>` not counted).
  std::size_t longest_tokens() const { return longest_tokens_; }

  /// Training batch number `index` of the run seeded with `seed`, of at most `batch_tokens`
  /// tokens (see the file's note). The same arguments give the same batch whatever was asked
  /// before. Throws std::invalid_argument if `batch_tokens` cannot hold the longest pair.
  tfm::Batch training_batch(std::size_t index, std::size_t batch_tokens, std::uint64_t seed) const;
  /// The pairs `indices` of `part` as one batch, padded on both sides to the longest.
  tfm::Batch batch(Part part, const std::vector<std::size_t>& indices) const;
  /// Every pair of a part in batches of at most `batch_tokens` tokens, sorted by length (the
  /// held-out loss).
  std::vector<tfm::Batch> batches(Part part, std::size_t batch_tokens) const;

  /// Source texts as a `[texts, longest]` batch of ids padded with `<pad>` (unknown characters
  /// become `<unk>`).
  tfm::TokenIds encode_sources(const std::vector<std::string>& texts) const;
  /// The text of generated ids: up to `<eos>` / `<pad>`, pieces joined (Bpe::decode).
  std::string decode(const std::vector<std::int32_t>& ids) const;

  /// Counts: verses per part, training pairs left out for length, the vocabulary, lengths.
  std::string summary() const;

 private:
  void encode_all(std::size_t longest);
  std::vector<std::int32_t> encode(const std::string& text) const;

  SplitVerses parts_;
  Direction direction_;
  Bpe tokenizer_;
  tfm::Vocabulary vocabulary_;
  std::array<std::vector<EncodedPair>, 4> encoded_;
  std::vector<std::size_t> training_verse_;  // training pair -> index into verses(kTrain)
  std::size_t too_long_ = 0, longest_tokens_ = 0, longest_ = 0;
  struct EpochPlan {  // the batches of the last epoch training_batch() dealt out
    std::uint64_t seed = 0;
    std::size_t epoch = 0, batch_tokens = 0, first_index = 0;
    std::vector<std::vector<std::size_t>> batches;  // indices into pairs(kTrain)
  };
  mutable EpochPlan plan_;
  mutable std::vector<std::size_t> epoch_starts_;  // first batch index of each epoch planned so far
  mutable std::uint64_t starts_seed_ = 0;
  mutable std::size_t starts_tokens_ = 0;
  EpochPlan plan_epoch(std::uint64_t seed, std::size_t epoch, std::size_t batch_tokens) const;
};

}  // namespace translate
