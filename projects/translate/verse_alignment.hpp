/// \file verse_alignment.hpp
/// \brief The translation project: which verses of the two Bibles are translations of each
/// other — the pairs the model trains and is tested on.
///
/// Same reference does not always mean same text. The Reina-Valera module declares the KJV
/// versification but numbers some chapters as the Hebrew Bible and the Spanish tradition do
/// (Jonah 1:17 is its Jonah 2:1; Job 38:39-41 open its Job 39), squeezing what does not fit into
/// a chapter's last verse; the World English Bible moves Romans 16:25-27 to the end of chapter
/// 14. Three rules keep only verses that say the same thing:
///
/// 1. **Missing**: a verse empty in either module is dropped.
/// 2. **Shifted chapter**: in a translation, a long verse is long in both languages: over a
///    chapter, the mean of |log(length ratio)| of its verse pairs is 0.11 in the median chapter
///    of these two Bibles. A chapter where it is poor (0.22 or more) and at least 20 % lower one
///    to five verses off than at the verses' own numbers is numbered differently in the two
///    modules, and is dropped whole.
/// 3. **Lengths**: a verse whose two texts differ in length by more than a factor of 2 (one
///    module merged it with a neighbour, or holds text the other lacks) is dropped.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "translate/bible.hpp"

namespace translate {

/// How many verses each rule of the alignment dropped, and which chapters were shifted.
struct AlignmentReport {
  std::size_t verses = 0;               ///< verses read (the Spanish versification's)
  std::size_t missing_spanish = 0;      ///< verses the Spanish module has no text for
  std::size_t missing_english = 0;      ///< verses the English module has no text for (Spanish has)
  std::size_t in_shifted_chapters = 0;  ///< verses of the shifted chapters (both texts there)
  std::vector<std::string> shifted_chapters;  ///< e.g. `Jonah.2`
  std::size_t length_mismatches = 0;          ///< verses dropped by the length rule
  std::size_t kept = 0;                       ///< the pairs that remain
  /// One paragraph with every count and the shifted chapters.
  std::string summary() const;
};

/// The verse pairs that survive the three rules, in canon order.
struct AlignedVerses {
  std::vector<ParallelVerse> pairs;  ///< both texts non-empty
  AlignmentReport report;            ///< what was dropped, and why
};

/// Applies the three rules to `verses` (in canon order, one chapter's verses together).
AlignedVerses align_verses(const std::vector<ParallelVerse>& verses);

/// The mean of |log(length of spanish[v] / length of english[v + shift])| over the verses v of
/// one chapter where both texts are there, and how many there were (rule 2's measure).
struct LengthAgreement {
  double mean_abs_log_ratio = 0.0;  ///< 0: equal lengths everywhere
  std::size_t verses = 0;           ///< how many pairs it was computed over
};
/// Rule 2's measure for one chapter's verses (in verse order) at `shift`.
LengthAgreement length_agreement(const std::vector<ParallelVerse>& chapter, int shift);

}  // namespace translate
