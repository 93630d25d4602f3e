/// \file baselines.hpp
/// \brief The translation project: what the model must beat — copying the source, translating
/// word by word with the words the training verses align most often, and Apertium, a real
/// rule-based translator (Debian's `apertium-eng-spa`).
///
/// **Word by word.** IBM Model 1 (Brown et al. 1993) learns from the training pairs how likely
/// each target word is to translate each source word (or none, "NULL"), by expectation
/// maximisation over all the ways a verse's words could pair up; five rounds are enough here.
/// Each target word of each training verse is then aligned to the source word that explains it
/// best, and a source word is translated by the target word it was aligned to most often. A
/// source word never aligned to anything is left out; one never seen in training is copied (a
/// name, most often). Punctuation and the spaces around it are kept as the source has them.
#pragma once

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace translate {

/// A source text and its translation.
using TextPair = std::pair<std::string, std::string>;

/// A word-for-word translator learnt from aligned pairs.
class WordByWord {
 public:
  /// Learns from `pairs` (source, target) with `rounds` rounds of IBM Model 1.
  static WordByWord learn(const std::vector<TextPair>& pairs, int rounds = 5);
  /// Every source word replaced by its most often aligned target word (see the file's note).
  std::string translate(const std::string& source) const;
  /// How many source words have a translation (or are left out).
  std::size_t known_words() const { return table_.size(); }
  /// The translation of one source word: a word, "" (left out), or the word itself if unseen.
  std::string translate_word(const std::string& word) const;

 private:
  std::unordered_map<std::string, std::string> table_;  // source word -> target word ("" = drop)
};

/// What running Apertium gave.
struct ApertiumRun {
  bool ran = false;                  ///< false: not installed, or it failed (see `problem`)
  std::string problem;               ///< why it did not run, with the `apt-get` line if missing
  std::vector<std::string> outputs;  ///< one translation per source text, when it ran
};

/// Translates `sources` (one line each; no newline inside) with `apertium -u MODE` (`spa-eng` or
/// `eng-spa`; -u: no marks on unknown words), in one run through temporary files.
ApertiumRun run_apertium(const std::vector<std::string>& sources, const std::string& mode);

}  // namespace translate
