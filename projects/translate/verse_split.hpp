/// \file verse_split.hpp
/// \brief The translation project: which verses train the model, which measure it while it
/// trains, which test it, and the book it never sees.
///
/// The split is by verse, from a hash of the verse's reference (`John.3.16`): FNV-1a (64-bit)
/// modulo 100, 0-93 train, 94-95 dev (the held-out loss while training), 96-99 test. It depends
/// on nothing but the reference, so it is the same on every machine, for either direction of
/// translation, and for any later cleaning of the texts. One whole book, Ruth (85 verses of
/// narrative that no other book retells), is held out besides: every verse of it is in none of
/// the three parts, so that its BLEU says how the model does on a story it never read a verse of
/// (as Tom Sawyer is for chapter 11's vowels).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "translate/bible.hpp"

namespace translate {

/// The book held out whole.
inline constexpr const char* kHeldOutBook = "Ruth";

/// The four parts of the verse pairs.
enum class Part { kTrain, kDev, kTest, kHeldOutBook };
/// "train", "dev", "test" or "book".
const char* part_name(Part part);

/// The part of a verse: kHeldOutBook for every verse of `held_out_book`, else by
/// tfm::fnv1a(ref.osis()) % 100 as above.
Part part_of(const VerseRef& ref, const std::string& held_out_book = kHeldOutBook);

/// The verse pairs of each part, in canon order, indexed by Part.
using SplitVerses = std::array<std::vector<ParallelVerse>, 4>;
/// Deals `pairs` into their parts.
SplitVerses split_verses(const std::vector<ParallelVerse>& pairs,
                         const std::string& held_out_book = kHeldOutBook);

/// The test verses left out as echoes of training verses (remove_echoes).
struct Echoes {
  std::size_t identical = 0;  ///< English text equal to a training verse's
  std::size_t shared = 0;     ///< else: half or more of its 4-grams in one training verse
  std::size_t total() const { return identical + shared; }  ///< both
  /// "65 of 1231 test verses left out as echoes of training verses (24 ..., 41 ...)".
  std::string summary(std::size_t before) const;
};

/// Leaves out of the test part every verse whose English text is a training verse's, or shares
/// at least `share` of its distinct 4-grams (sacreBLEU's 13a tokens, lowercase) with one training
/// verse: a verse told twice in the Bible (Kings and Chronicles, the Gospels), a refrain or a
/// formula. What it scores would be the model's memory, not its translation. The training, dev
/// and held-out parts are as they were. Returns the counts.
Echoes remove_echoes(SplitVerses& parts, double share = 0.5);

}  // namespace translate
