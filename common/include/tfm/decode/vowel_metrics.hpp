/// \file vowel_metrics.hpp
/// \brief Chapter 11: how well vowels are restored, and the counting rules a model must beat.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tfm {

/// The kind of word a hidden vowel lies in. It bounds what anything fitted on the training text can
/// know about that vowel: a seen word can be remembered, an unseen one only guessed from its
/// letters and its neighbours, and of a cut word the window shows only a part.
enum class WordKind {
  kSeen,    ///< a word of the training text, whole in the window
  kUnseen,  ///< whole in the window, but never a word of the training text
  kCut,     ///< running past the window's first or last character: only a part is shown
};
/// How many kinds there are (for arrays indexed by WordKind).
constexpr std::size_t kWordKinds = 3;
/// "in a word of the training text, whole", ... for tables.
const char* word_kind_name(WordKind kind);

/// The words of a text (its runs of letters between spaces), to tell seen words from unseen ones.
class WordList {
 public:
  /// Every word of `text` (normalised text: lower-case letters and single spaces).
  explicit WordList(const std::string& text);
  /// Is `word` one of them?
  bool contains(const std::string& word) const { return words_.count(word) != 0; }

 private:
  std::unordered_set<std::string> words_;
};

/// For every character of `window`, the kind of word it lies in (spaces: kSeen; they are never
/// hidden). `cut_before` says that the text has a letter just before the window, so that a word
/// that starts the window began earlier; `cut_after` the same after its end.
std::vector<WordKind> word_kinds(const std::string& window, bool cut_before, bool cut_after,
                                 const WordList& training_words);

/// Counts of correct characters over restored windows.
struct RestorationScore {
  std::size_t characters = 0;          ///< every position
  std::size_t correct_characters = 0;  ///< positions where restored == truth
  std::size_t vowels = 0;              ///< positions hidden by `*` in the input
  std::size_t correct_vowels = 0;      ///< hidden positions restored correctly
  /// The hidden vowels by the kind of word they lie in, indexed by WordKind (counted only for
  /// windows added with their word kinds).
  std::array<std::size_t, kWordKinds> vowels_of_kind{};
  /// Those restored correctly, by the kind of word they lie in.
  std::array<std::size_t, kWordKinds> correct_vowels_of_kind{};

  /// Adds one window: the masked input, what was restored, and the truth. `masked` and `truth`
  /// must have the same length (else std::invalid_argument naming both); a `restored` that is
  /// shorter (a free decoding that stopped early) counts its missing positions as wrong.
  /// `kinds` (word_kinds of the truth), if given, must have that length too.
  void add(const std::string& masked, const std::string& restored, const std::string& truth,
           const std::vector<WordKind>& kinds = {});
  /// correct_characters / characters.
  double character_accuracy() const;
  /// correct_vowels / vowels: the number that matters (the other characters are given).
  double vowel_accuracy() const;
  /// The hidden vowels of the windows added with their word kinds.
  std::size_t vowels_with_kinds() const;
  /// The share of those that lie in words of `kind`.
  double share_of(WordKind kind) const;
  /// correct / hidden vowels in words of `kind`.
  double vowel_accuracy_of(WordKind kind) const;
  /// What vowel_accuracy would be if every vowel of the seen words were right and the others
  /// stayed as they are: how far remembering the training text's words can take this rule.
  double vowel_accuracy_with_seen_words_right() const;
};

/// A rule that fills every `*` without a model, fitted on the training text: the n-gram
/// baselines of chapter 11.
class VowelBaseline {
 public:
  /// Always the vowel most frequent in `train_text`.
  static VowelBaseline most_frequent(const std::string& train_text);
  /// The vowel most frequent in `train_text` between the same `letters` characters on the left
  /// and on the right, as the masked text shows them (a neighbour may itself be `*`; the ends of
  /// the text count as characters of their own). Where that context never occurred in training
  /// it backs off to `letters - 1` on each side, and so on down to the most frequent vowel.
  /// Throws std::invalid_argument for `letters` = 0 (that is most_frequent) or above 8.
  static VowelBaseline with_context(const std::string& train_text, std::size_t letters);

  /// `masked` with every `*` replaced by the rule's vowel.
  std::string restore(const std::string& masked) const;
  /// A one-line description for tables.
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  char fallback_ = 'e';
  // by_context_[k - 1]: "k characters left|k characters right" -> the vowel, for k = 1, 2, ...
  std::vector<std::unordered_map<std::string, char>> by_context_;
};

}  // namespace tfm
