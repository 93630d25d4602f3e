/// \file metrics.hpp
/// \brief The pronunciation project: how grapheme-to-phoneme conversion is scored — word error rate and phoneme
/// error rate (Levenshtein distance over the reference length), against every reference
/// pronunciation of a word.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace pronounce {

/// Levenshtein distance between two token sequences: the fewest insertions, deletions and
/// substitutions (each costing 1) that turn `a` into `b`.
std::size_t edit_distance(const std::vector<std::string>& a, const std::vector<std::string>& b);

/// Word and phoneme errors counted over the words tested.
///
/// A word is right when the prediction equals **any** of its reference pronunciations. Its
/// phoneme errors are the edit distance to the **closest** reference, divided (in the rate) by
/// that reference's length; with several references at the same distance, the longer one counts
/// (the smaller rate).
struct PronunciationScore {
  std::size_t words = 0;               ///< words tested
  std::size_t word_errors = 0;         ///< words whose prediction equals none of the references
  std::size_t phoneme_errors = 0;      ///< edit distances to the closest references, summed
  std::size_t reference_phonemes = 0;  ///< lengths of those references, summed

  /// Adds one word: its predicted phonemes and its references (at least one). Throws
  /// std::invalid_argument if `references` is empty.
  void add(const std::vector<std::string>& predicted,
           const std::vector<std::vector<std::string>>& references);
  /// word_errors / words (0 if nothing was tested).
  double word_error_rate() const;
  /// phoneme_errors / reference_phonemes (0 if nothing was tested).
  double phoneme_error_rate() const;
};

}  // namespace pronounce
