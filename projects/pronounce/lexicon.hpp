/// \file lexicon.hpp
/// \brief The pronunciation project: CMUdict as Festival ships it (Debian's `festlex-cmu`) — its
/// reader and its phoneme tokens.
///
/// **The phoneme tokens.** Festival's `cmudict-0.4.out` writes every word as syllables of
/// ARPAbet phones with a stress digit per syllable, e.g. `("aaberg" nil (((aa) 1) ((b er g) 0)))`.
/// The model writes the phones **without stress**: the 39 phonemes of CMUdict's stress-less set
/// (15 vowels, 24 consonants). Stress would turn every vowel into three tokens (0, 1, 2) and
/// double the size of the output vocabulary for a distinction that is prosody, not spelling; and
/// the published word and phoneme error rates this project compares with (joint-sequence
/// models, LSTM and Transformer encoder-decoders on CMUdict) are measured on stress-less
/// phonemes. Festival's lexicon has one phone CMUdict does not: `ax`, its unstressed schwa, which
/// CMUdict writes `AH0`; without stress it is `ah`, so `ax` is read as `ah` (the only map).
///
/// **Several pronunciations.** A word listed more than once (`"read"` as a verb and as a past
/// tense, or the same spelling in capitals: `"Bubba"`) keeps each distinct pronunciation once;
/// every one of them is a training pair, and a prediction is right when it equals any of them.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace pronounce {

/// Where Debian's `festlex-cmu` puts Festival's copy of CMUdict 0.4.
inline constexpr const char* kCmudictPath = "/usr/share/festival/dicts/cmu/cmudict-0.4.out";

/// Thrown for a dictionary that cannot be read; the message names the file and the line.
class DictionaryError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// One word (lowercase letters a-z) and its distinct pronunciations, each a list of phonemes.
struct DictionaryWord {
  std::string word;                                      ///< e.g. `read`
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
std::vector<DictionaryWord> parse_festival_lexicon(const std::string& text,
                                                   const std::string& name);
/// parse_festival_lexicon on a file; throws std::runtime_error naming it if it cannot be read.
std::vector<DictionaryWord> read_festival_lexicon(const std::string& path);

}  // namespace pronounce
