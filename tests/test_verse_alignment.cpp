// The translation project's verse alignment: missing verses, chapters numbered differently in the
// two modules (found by their verse lengths), and verses whose texts differ too much in length.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "translate/verse_alignment.hpp"

using namespace translate;

namespace {
// A chapter whose verse v has `lengths[v]` characters in both languages, English moved by
// `shift` verses (English verse v holds the text of Spanish verse v - shift).
std::vector<ParallelVerse> chapter(const std::string& book, int number,
                                   const std::vector<int>& lengths, int shift = 0) {
  std::vector<ParallelVerse> verses;
  for (std::size_t v = 0; v < lengths.size(); ++v) {
    ParallelVerse verse{{book, number, static_cast<int>(v + 1)}, std::string(lengths[v], 'e'), ""};
    const long from = static_cast<long>(v) - shift;
    verse.english = from >= 0 && from < static_cast<long>(lengths.size())
                        ? std::string(lengths[from], 'n')
                        : "";
    verses.push_back(verse);
  }
  return verses;
}
const std::vector<int> kLengths = {40, 120, 60, 200, 80, 30, 150, 90, 45, 170};
}  // namespace

TEST_CASE("align_verses keeps verses that agree and drops missing ones", "[alignment]") {
  std::vector<ParallelVerse> verses = chapter("Gen", 1, kLengths);
  verses[2].spanish.clear();
  verses[5].english.clear();
  const AlignedVerses aligned = align_verses(verses);
  CHECK(aligned.report.verses == 10);
  CHECK(aligned.report.missing_spanish == 1);
  CHECK(aligned.report.missing_english == 1);
  CHECK(aligned.report.shifted_chapters.empty());
  CHECK(aligned.pairs.size() == 8);
  CHECK(aligned.report.kept == 8);
  CHECK(aligned.pairs[2].ref.osis() == "Gen.1.4");
}

TEST_CASE("a chapter numbered one verse off is found by its lengths and dropped whole",
          "[alignment]") {
  std::vector<ParallelVerse> verses = chapter("Gen", 1, kLengths);
  const std::vector<ParallelVerse> shifted = chapter("Jonah", 2, kLengths, 1);
  verses.insert(verses.end(), shifted.begin(), shifted.end());
  const AlignedVerses aligned = align_verses(verses);
  REQUIRE(aligned.report.shifted_chapters == std::vector<std::string>{"Jonah.2"});
  CHECK(aligned.report.in_shifted_chapters == 9);  // English Jonah 2:1 is empty: missing
  CHECK(aligned.report.missing_english == 1);
  CHECK(aligned.pairs.size() == 10);  // all of Gen 1
  CHECK(length_agreement(shifted, 0).mean_abs_log_ratio > 0.22);
  CHECK(length_agreement(shifted, 1).mean_abs_log_ratio == Approx(0.0));
  // Five verses off is found too; a chapter that agrees poorly but no better shifted is kept
  // (short verses of similar lengths, as in many psalms), and so is a short chapter.
  CHECK(align_verses(
            chapter("Job", 40, {40, 120, 60, 200, 80, 30, 150, 90, 45, 170, 60, 110, 35, 140}, 5))
            .report.shifted_chapters.size() == 1);
  CHECK(align_verses(chapter("Ps", 117, {40, 120}, 1)).report.shifted_chapters.empty());
}

TEST_CASE("verses whose texts differ in length more than twice are dropped", "[alignment]") {
  std::vector<ParallelVerse> verses = chapter("Rom", 14, kLengths);
  verses[3].english += std::string(500, 'x');  // Romans 16:25-27 moved into 14:23
  verses[4].spanish = std::string(161, 'e');   // 80 English: just over 2x
  verses[5].spanish = std::string(60, 'e');    // 30 English: exactly 2x is kept
  const AlignedVerses aligned = align_verses(verses);
  CHECK(aligned.report.length_mismatches == 2);
  CHECK(aligned.pairs.size() == 8);
  CHECK(aligned.report.summary().find("2 whose two texts differ in length") != std::string::npos);
}
