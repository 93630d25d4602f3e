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

/// The 1909 Spanish written as today, for Apertium, which knows modern Spanish only.
///
/// Spelling (the Real Academia's rules of 1952, and 2010 for the demonstratives): the preposition
/// `á` and the conjunctions `é` `ó` `ú` lose their accent; so do the one-syllable `fué` `fuí`
/// `dió` `vió` `ví` `fé` `pié` and the pronouns `éste` `ése` `aquél` and their forms; a pronoun
/// joined to the end of a finite verb goes before it, as a word (`levantóse` → `se levantó`,
/// `díjole` → `le dijo`, `haréle` → `le haré`). Names: a Spanish name (a capitalised word that
/// does not begin a sentence, as names_in() finds them) seen `min_count` times or more in the
/// training verses becomes the English name word by word translates it to, when that is a name
/// of the English training verses too (`Jehová` → `Yahweh`, `Saúl` → `Saul`). The names are
/// learnt from the training verses only, like every other baseline.
class Modernisation {
 public:
  /// The spelling rules, and the names of the training pairs (Spanish, English).
  static Modernisation learn(const std::vector<TextPair>& spanish_english,
                             const WordByWord& word_by_word, std::size_t min_count = 3);
  /// The spelling rules alone.
  static std::string modern_spelling(const std::string& spanish);
  /// `spanish` with its names mapped and its spelling modernised.
  std::string apply(const std::string& spanish) const;
  /// Spanish name -> English name.
  const std::unordered_map<std::string, std::string>& names() const { return names_; }
  /// What was changed, in one line, with a few of the names.
  std::string describe() const;

 private:
  std::unordered_map<std::string, std::string> names_;
  std::vector<std::pair<long, std::string>> most_frequent_;  // (count, name), for describe()
};

}  // namespace translate
