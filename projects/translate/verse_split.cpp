#include "translate/verse_split.hpp"

#include "tfm/engine/fnv1a.hpp"

namespace translate {

const char* part_name(Part part) {
  switch (part) {
    case Part::kTrain:
      return "train";
    case Part::kDev:
      return "dev";
    case Part::kTest:
      return "test";
    case Part::kHeldOutBook:
      return "book";
  }
  return "?";
}

Part part_of(const VerseRef& ref, const std::string& held_out_book) {
  if (ref.book == held_out_book) return Part::kHeldOutBook;
  const std::uint64_t bucket = tfm::fnv1a(ref.osis()) % 100;
  return bucket < 94 ? Part::kTrain : bucket < 96 ? Part::kDev : Part::kTest;
}

SplitVerses split_verses(const std::vector<ParallelVerse>& pairs,
                         const std::string& held_out_book) {
  SplitVerses parts;
  for (const ParallelVerse& pair : pairs)
    parts[static_cast<int>(part_of(pair.ref, held_out_book))].push_back(pair);
  return parts;
}

}  // namespace translate
