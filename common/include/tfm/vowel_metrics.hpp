/// \file vowel_metrics.hpp
/// \brief Chapter 11: how well vowels are restored, and the two baselines a model must beat.
#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <string>

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

/// A rule that fills every `*` without a model, fitted on the training text.
class VowelBaseline {
 public:
  /// Always the vowel most frequent in `train_text`.
  static VowelBaseline most_frequent(const std::string& train_text);
  /// The vowel most frequent in `train_text` between the same left and right neighbours as seen
  /// in the masked text (a neighbour may itself be `*`); the most frequent vowel where that
  /// context never occurred.
  static VowelBaseline with_neighbours(const std::string& train_text);

  /// `masked` with every `*` replaced by the rule's vowel.
  std::string restore(const std::string& masked) const;
  /// A one-line description for tables.
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  char fallback_ = 'e';
  bool use_context_ = false;
  std::map<std::array<char, 2>, char> by_context_;  // (left, right) -> vowel
};

}  // namespace tfm
