/// \file vowel_metrics.hpp
/// \brief Task (chapter 11): how well vowels are restored, and the counting rules a model must beat.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

namespace tfm {

/// Counts of correct characters over restored windows.
struct RestorationScore {
  std::size_t characters = 0;          ///< every position
  std::size_t correct_characters = 0;  ///< positions where restored == truth
  std::size_t vowels = 0;              ///< positions hidden by `*` in the input
  std::size_t correct_vowels = 0;      ///< hidden positions restored correctly

  /// Adds one window: the masked input, what was restored, and the truth. `masked` and `truth`
  /// must have the same length (else std::invalid_argument naming both); a `restored` that is
  /// shorter (a free decoding that stopped early) counts its missing positions as wrong.
  void add(const std::string& masked, const std::string& restored, const std::string& truth);
  /// correct_characters / characters.
  double character_accuracy() const;
  /// correct_vowels / vowels: the number that matters (the other characters are given).
  double vowel_accuracy() const;
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
