// The translation project's split: by a hash of the verse reference, the same for every run and
// direction, about 94/2/4 %, with one book held out whole.
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "translate/verse_split.hpp"

using namespace translate;

TEST_CASE("part_of puts a verse by its reference, and the held-out book whole", "[split]") {
  CHECK(part_of({"John", 3, 16}) == Part::kTrain);       // hash % 100 = 88
  CHECK(part_of({"John", 3, 5}) == Part::kDev);          // 94
  CHECK(part_of({"John", 1, 12}) == Part::kTest);        // 98
  CHECK(part_of({"Ruth", 1, 1}) == Part::kHeldOutBook);  // 88, but in the book
  CHECK(part_of({"Ruth", 1, 1}, "Esth") == Part::kTrain);
  CHECK(std::string(part_name(Part::kHeldOutBook)) == "book");
}

TEST_CASE("split_verses deals every verse into exactly one part, about 94/2/4", "[split]") {
  std::vector<ParallelVerse> pairs;
  for (const char* book : {"Gen", "Ruth", "Matt"})
    for (int c = 1; c <= 30; ++c)
      for (int v = 1; v <= 30; ++v) pairs.push_back({{book, c, v}, "es", "en"});
  const SplitVerses parts = split_verses(pairs);
  std::set<std::string> seen;
  for (int p = 0; p < 4; ++p)
    for (const ParallelVerse& verse : parts[p]) {
      CHECK(seen.insert(verse.ref.osis()).second);
      CHECK(part_of(verse.ref) == static_cast<Part>(p));
    }
  CHECK(seen.size() == pairs.size());
  CHECK(parts[static_cast<int>(Part::kHeldOutBook)].size() == 900);
  const double n = 1800.0;
  CHECK(parts[static_cast<int>(Part::kTrain)].size() / n == Approx(0.94).margin(0.02));
  CHECK(parts[static_cast<int>(Part::kDev)].size() / n == Approx(0.02).margin(0.01));
  CHECK(parts[static_cast<int>(Part::kTest)].size() / n == Approx(0.04).margin(0.015));
}
