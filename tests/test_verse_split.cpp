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

TEST_CASE("remove_echoes leaves out test verses told in a training verse", "[split][echoes]") {
  SplitVerses parts;
  auto& train = parts[static_cast<int>(Part::kTrain)];
  auto& test = parts[static_cast<int>(Part::kTest)];
  train.push_back(
      {{"Gen", 1, 1}, "es", "In the beginning, God created the heavens and the earth."});
  train.push_back({{"Gen", 1, 2}, "es", "The earth was formless and empty."});
  test.push_back({{"John", 1, 1}, "es", "The earth was formless and empty."});  // identical
  // 8 distinct 4-grams, 4 of them in Gen 1:1 (lowercase): an echo at 50 %.
  test.push_back({{"John", 1, 2}, "es", "In the beginning, God created the light and it was"});
  // 4-grams spread over two verses, none with half: kept.
  test.push_back({{"John", 1, 3}, "es", "In the beginning God saw the earth was formless"});
  test.push_back({{"John", 1, 4}, "es", "Jesus wept."});  // no 4-gram at all: kept
  const auto dev = parts[static_cast<int>(Part::kDev)].size();
  const Echoes echoes = remove_echoes(parts);
  CHECK(echoes.identical == 1);
  CHECK(echoes.shared == 1);
  CHECK(echoes.total() == 2);
  REQUIRE(test.size() == 2);
  CHECK(test[0].ref.osis() == "John.1.3");
  CHECK(test[1].ref.osis() == "John.1.4");
  CHECK(train.size() == 2);
  CHECK(parts[static_cast<int>(Part::kDev)].size() == dev);
  CHECK(echoes.summary(4) ==
        "2 of 4 test verses left out as echoes of training verses (1 with a training verse's "
        "English, 1 sharing half or more of their 4-grams with one)");
}
