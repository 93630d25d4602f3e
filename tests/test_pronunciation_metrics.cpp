// Word and phoneme error rates of the pronunciation project, on cases counted by hand.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "pronounce/metrics.hpp"

using namespace pronounce;

namespace {
std::vector<std::string> tokens(const std::string& text) {
  std::vector<std::string> out;
  for (const char c : text) out.emplace_back(1, c);
  return out;
}
}  // namespace

TEST_CASE("pronunciation metrics: edit distance on hand-made cases", "[pronunciation_metrics]") {
  CHECK(edit_distance({}, {}) == 0);
  CHECK(edit_distance(tokens("abc"), {}) == 3);  // three deletions
  CHECK(edit_distance({}, tokens("ab")) == 2);   // two insertions
  CHECK(edit_distance(tokens("abc"), tokens("abc")) == 0);
  CHECK(edit_distance(tokens("abc"), tokens("axc")) == 1);         // one substitution
  CHECK(edit_distance(tokens("abc"), tokens("ac")) == 1);          // one deletion
  CHECK(edit_distance(tokens("ac"), tokens("abc")) == 1);          // one insertion
  CHECK(edit_distance(tokens("ab"), tokens("ba")) == 2);           // a swap is two edits
  CHECK(edit_distance(tokens("kitten"), tokens("sitting")) == 3);  // the textbook case
  CHECK(edit_distance(tokens("sitting"), tokens("kitten")) == 3);  // symmetric
  CHECK(edit_distance(tokens("abcdef"), tokens("azced")) == 3);
  // Tokens are whole phonemes, not characters.
  CHECK(edit_distance({"r", "iy", "d"}, {"r", "eh", "d"}) == 1);
  CHECK(edit_distance({"sh"}, {"s", "h"}) == 2);
}

TEST_CASE(
    "pronunciation metrics: a word is right if it equals any reference; PER takes the closest",
    "[pronunciation_metrics]") {
  PronunciationScore score;
  CHECK(score.word_error_rate() == 0.0);
  CHECK(score.phoneme_error_rate() == 0.0);
  const std::vector<std::vector<std::string>> read = {{"r", "iy", "d"}, {"r", "eh", "d"}};
  score.add({"r", "eh", "d"}, read);  // the second reference: right
  CHECK(score.words == 1);
  CHECK(score.word_errors == 0);
  CHECK(score.phoneme_errors == 0);
  CHECK(score.reference_phonemes == 3);
  score.add({"r", "ih", "d"}, read);  // one substitution from both
  CHECK(score.word_errors == 1);
  CHECK(score.phoneme_errors == 1);
  CHECK(score.reference_phonemes == 6);
  // The closest reference counts: 1 edit from "k ae t s", 3 from "d ao g".
  score.add({"k", "ae", "t"}, {{"d", "ao", "g"}, {"k", "ae", "t", "s"}});
  CHECK(score.word_errors == 2);
  CHECK(score.phoneme_errors == 2);
  CHECK(score.reference_phonemes == 10);
  CHECK(score.word_error_rate() == Approx(2.0 / 3.0));
  CHECK(score.phoneme_error_rate() == Approx(0.2));
  // Equally close references: the longer one (the smaller rate).
  PronunciationScore tie;
  tie.add({"a", "b"}, {{"a"}, {"a", "b", "c"}});
  CHECK(tie.phoneme_errors == 1);
  CHECK(tie.reference_phonemes == 3);
  CHECK_THROWS_WITH(score.add({"a"}, {}), Catch::Contains("at least one reference"));
}
