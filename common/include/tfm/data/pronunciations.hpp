/// \file pronunciations.hpp
/// \brief Chapter 11: grapheme-to-phoneme conversion on CMUdict — the dictionary as Festival ships
/// it (Debian's `festlex-cmu`), its phoneme tokens, a split by word and length-bucketed batches.
///
/// **The phoneme tokens.** Festival's `cmudict-0.4.out` writes every word as syllables of
/// ARPAbet phones with a stress digit per syllable, e.g. `("aaberg" nil (((aa) 1) ((b er g) 0)))`.
/// The model writes the phones **without stress**: the 39 phonemes of CMUdict's stress-less set
/// (15 vowels, 24 consonants). Stress would turn every vowel into three tokens (0, 1, 2) and
/// double the size of the output vocabulary for a distinction that is prosody, not spelling; and
/// the published word and phoneme error rates this chapter compares with (joint-sequence
/// models, LSTM and Transformer encoder-decoders on CMUdict) are measured on stress-less
/// phonemes. Festival's lexicon has one phone CMUdict does not: `ax`, its unstressed schwa, which
/// CMUdict writes `AH0`; without stress it is `ah`, so `ax` is read as `ah` (the only map).
///
/// **Several pronunciations.** A word listed more than once (`"read"` as a verb and as a past
/// tense, or the same spelling in capitals: `"Bubba"`) keeps each distinct pronunciation once;
/// every one of them is a training pair, and a prediction is right when it equals any of them.
///
/// **The split** is by word, from a hash of its spelling: about 90 % train, 5 % dev (the held-out
/// loss while training) and 5 % test. A word and all its pronunciations sit in one split.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tfm/data/dataset.hpp"
#include "tfm/data/vocabulary.hpp"

namespace tfm {

/// Where Debian's `festlex-cmu` puts Festival's copy of CMUdict 0.4.
inline constexpr const char* kCmudictPath = "/usr/share/festival/dicts/cmu/cmudict-0.4.out";

/// Thrown for a dictionary that cannot be read; the message names the file and the line.
class DictionaryError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// One word (lowercase letters a-z) and its distinct pronunciations, each a list of phonemes.
struct DictionaryWord {
  std::string word;                                       ///< e.g. `read`
  std::vector<std::vector<std::string>> pronunciations;  ///< e.g. `r iy d` and `r eh d`
};

/// The 39 stress-less ARPAbet phonemes of CMUdict, lowercase, in the order of the vocabulary.
const std::vector<std::string>& phoneme_symbols();

/// A Festival phone as a phoneme token: the stress digit dropped (`aa1` -> `aa`) and `ax` read as
/// `ah`. Throws std::invalid_argument naming the phone if it is not one of the 39 then.
std::string stressless_phoneme(const std::string& phone);

/// Reads the text of a Festival compiled lexicon (first line `MNCL`, then one entry per line,
/// `("word" POS (((phones) stress) ...))`). Words are lowercased; the entries of one word are
/// merged. Throws DictionaryError naming `name` and the line for a missing header, a malformed
/// entry, a word with a character other than a letter, an unknown phone or an entry without
/// phones. The words come back sorted.
std::vector<DictionaryWord> parse_festival_lexicon(const std::string& text, const std::string& name);
/// parse_festival_lexicon on a file; throws std::runtime_error naming it if it cannot be read.
std::vector<DictionaryWord> read_festival_lexicon(const std::string& path);

/// The three parts of the dictionary.
enum class WordSplit { kTrain, kDev, kTest };
/// "train", "dev" or "test".
const char* word_split_name(WordSplit split);
/// The part a word belongs to: FNV-1a (64-bit) of its spelling, modulo 100: 0-89 train, 90-94
/// dev, 95-99 test. Depends on nothing but the word, so it is the same on every machine and for
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
  const Vocabulary& letters() const { return letters_; }
  /// The target vocabulary: the 39 phonemes of phoneme_symbols(), as words.
  const Vocabulary& phonemes() const { return phonemes_; }
  /// The words of one part, sorted.
  const std::vector<DictionaryWord>& words(WordSplit split) const { return parts_[static_cast<int>(split)]; }
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
  Batch training_batch(std::size_t index, std::size_t batch_size, std::uint64_t seed) const;
  /// The words `[first, first + count)` of a part with their first pronunciations, padded to the
  /// longest (the held-out loss; the test decodes the src and compares with every pronunciation).
  Batch batch(WordSplit split, std::size_t first, std::size_t count) const;
  /// Pairs of (word, pronunciation) as one batch, padded on both sides to the longest.
  Batch pair_batch(const std::vector<std::pair<const DictionaryWord*, std::size_t>>& pairs) const;

  /// Words typed by a user as a `[words, longest]` src batch, padded with `<pad>`. Throws
  /// std::invalid_argument naming the word for an empty word, a character other than a letter
  /// (capitals are lowercased), or more than `max_len` letters (the model's positional table).
  TokenIds encode_words(const std::vector<std::string>& words, std::size_t max_len) const;

 private:
  Vocabulary letters_, phonemes_;
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

}  // namespace tfm
