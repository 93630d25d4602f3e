/// \file pronunciations.hpp
/// \brief The pronunciation project: CMUdict split by word and encoded — letters for the
/// encoder, phonemes for the decoder — with length-bucketed training batches.
///
/// **The split** is by word, from a hash of its spelling: about 90 % train, 5 % held out (the
/// held-out loss while training) and 5 % test. A word and all its pronunciations sit in one split.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "pronounce/lexicon.hpp"
#include "tfm/data/dataset.hpp"
#include "tfm/data/vocabulary.hpp"

namespace pronounce {

/// The three parts of the dictionary.
enum class WordSplit { kTrain, kHeldOut, kTest };
/// "train", "held-out" or "test".
const char* word_split_name(WordSplit split);
/// The part a word belongs to: FNV-1a (64-bit) of its spelling, modulo 100: 0-89 train, 90-94
/// held out, 95-99 test. Depends on nothing but the word, so it is the same on every machine and for
/// every version of the dictionary.
WordSplit word_split(const std::string& word);

/// The dictionary split by word and encoded: letters for the encoder, phonemes for the decoder.
class PronunciationData {
 public:
  /// Splits `words` (each with at least one pronunciation) by word_split().
  explicit PronunciationData(const std::vector<DictionaryWord>& words);
  /// read_festival_lexicon, then the constructor.
  static PronunciationData from_file(const std::string& path);

  /// The source vocabulary: `a` .. `z`.
  const tfm::Vocabulary& letters() const { return letters_; }
  /// The target vocabulary: the 39 phonemes of phoneme_symbols(), as words.
  const tfm::Vocabulary& phonemes() const { return phonemes_; }
  /// The words of one part, sorted.
  const std::vector<DictionaryWord>& words(WordSplit split) const {
    return parts_[static_cast<int>(split)];
  }
  /// The longest word, in letters, over the whole dictionary.
  std::size_t max_letters() const { return max_letters_; }
  /// The longest pronunciation, in phonemes, over the whole dictionary.
  std::size_t max_phonemes() const { return max_phonemes_; }
  /// Training pairs: every pronunciation of every training word.
  std::size_t num_training_pairs() const { return pairs_.size(); }
  /// One paragraph of counts: words, words with several pronunciations, the three parts, the
  /// vocabularies, the longest word and pronunciation.
  std::string summary() const;

  /// Training batch number `index` of the run seeded with `seed`. An epoch deals every pair out
  /// once (the last pairs that do not fill a batch wait for the next epoch's shuffle) in batches
  /// of similar lengths: the pairs are shuffled, cut into chunks of 32 batches, sorted by length
  /// within a chunk, cut into batches, and the batches shuffled. Each batch is padded only to its
  /// own longest word and pronunciation. The same arguments give the same batch whatever was
  /// asked before (a resumed run goes on as an uninterrupted one).
  tfm::Batch training_batch(std::size_t index, std::size_t batch_size, std::uint64_t seed) const;
  /// The words `[first, first + count)` of a part with their first pronunciations, padded to the
  /// longest (the held-out loss; the test decodes the src and compares with every pronunciation).
  tfm::Batch batch(WordSplit split, std::size_t first, std::size_t count) const;
  /// Pairs of (word, pronunciation) as one batch, padded on both sides to the longest.
  tfm::Batch pair_batch(
      const std::vector<std::pair<const DictionaryWord*, std::size_t>>& pairs) const;

  /// Words typed by a user as a `[words, longest]` src batch, padded with `<pad>`. Throws
  /// std::invalid_argument naming the word for an empty word, a character other than a letter
  /// (capitals are lowercased), or more than `max_len` letters (the model's positional table).
  tfm::TokenIds encode_words(const std::vector<std::string>& words, std::size_t max_len) const;

 private:
  tfm::Vocabulary letters_, phonemes_;
  std::vector<DictionaryWord> parts_[3];
  std::vector<std::pair<std::size_t, std::size_t>> pairs_;  // (training word, pronunciation)
  std::size_t max_letters_ = 0, max_phonemes_ = 0;
  struct EpochPlan {  // the batches of the last epoch training_batch() dealt out
    std::uint64_t seed = 0;
    std::size_t epoch = 0, batch_size = 0;
    std::vector<std::vector<std::size_t>> batches;  // indices into pairs_
  };
  mutable EpochPlan plan_;
};

}  // namespace pronounce
