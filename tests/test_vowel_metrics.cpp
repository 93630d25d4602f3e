// Vowel-restoration scores and the two baselines a model must beat (chapter 11), on strings
// small enough to count by hand.
#include <array>
#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "tfm/tasks/vowel_metrics.hpp"
#include "tfm/tasks/vowel_restoration.hpp"

using namespace tfm;

TEST_CASE("vowel metrics: RestorationScore counts characters and hidden vowels",
          "[vowel_metrics]") {
  RestorationScore score;
  CHECK(score.character_accuracy() == 0.0);  // nothing scored yet: 0, not a division by zero
  CHECK(score.vowel_accuracy() == 0.0);

  score.add("th* c*t", "the cat", "the cat");  // all 7 right, 2 hidden vowels
  CHECK(score.characters == 7);
  CHECK(score.correct_characters == 7);
  CHECK(score.vowels == 2);
  CHECK(score.correct_vowels == 2);

  // One hidden vowel wrong (o for i), one given letter rewritten (x for s): the letter counts
  // against the characters only, the vowel against both.
  score.add("th*s", "thox", "this");
  CHECK(score.characters == 11);
  CHECK(score.correct_characters == 9);
  CHECK(score.vowels == 3);
  CHECK(score.correct_vowels == 2);
  CHECK(score.character_accuracy() == Approx(9.0 / 11.0));
  CHECK(score.vowel_accuracy() == Approx(2.0 / 3.0));

  // A vowel that was visible (not '*') is not a hidden one, right or wrong.
  score.add("a", "e", "a");
  CHECK(score.vowels == 3);
  CHECK(score.characters == 12);
  CHECK(score.correct_characters == 9);
}

TEST_CASE("vowel metrics: RestorationScore rejects a truth of another length, naming both",
          "[vowel_metrics]") {
  RestorationScore score;
  CHECK_THROWS_WITH(score.add("th*", "the", "thee"),
                    Catch::Contains("masked 3") && Catch::Contains("truth 4"));
  CHECK(score.characters == 0);  // nothing half-counted
}

TEST_CASE("vowel metrics: a restoration that stopped early counts its missing positions as wrong",
          "[vowel_metrics]") {
  // Free decoding may emit <eos> before the end of the window.
  RestorationScore score;
  score.add("h* s*t", "he", "he sat");
  CHECK(score.characters == 6);
  CHECK(score.correct_characters == 2);
  CHECK(score.vowels == 2);
  CHECK(score.correct_vowels == 1);
  score.add("*t", "itself", "it");  // running on past the end: the extra letters are ignored
  CHECK(score.correct_characters == 4);
}

TEST_CASE("vowel metrics: the most-frequent-vowel baseline fills every * with one vowel",
          "[vowel_metrics]") {
  // "cat cat dog dog dog bee": a 2, o 3, e 2 -> o.
  const VowelBaseline o = VowelBaseline::most_frequent("cat cat dog dog dog bee");
  CHECK(o.name() == "most frequent vowel ('o')");
  CHECK(o.restore("c*t *n th* m*t") == "cot on tho mot");
  CHECK(o.restore("nothing hidden") == "nothing hidden");  // only '*' changes
  CHECK(o.restore("") == "");

  // Ties go to the first in a, e, i, o, u order; a text without vowels falls back to e.
  CHECK(VowelBaseline::most_frequent("bit bat").restore("*") == "a");
  CHECK(VowelBaseline::most_frequent("rhythm").restore("*") == "e");
}

TEST_CASE(
    "vowel metrics: the one-letter baseline uses the vowel seen most between the same two letters",
    "[vowel_metrics]") {
  // Masked, the training text is "c*t c*t d*g d*g d*g b**": contexts (c, t) -> a twice,
  // (d, g) -> o three times, and at the end of "bee" (b, *) and (*, end) -> e.
  const VowelBaseline rule = VowelBaseline::with_context("cat cat dog dog dog bee", 1);
  CHECK(rule.name() == "most frequent vowel given 1 letter on each side");
  CHECK(rule.restore("c*t") == "cat");  // the fallback would say cot
  CHECK(rule.restore("d*g") == "dog");
  CHECK(rule.restore("b**") == "bee");  // a neighbour may itself be hidden
  // Contexts never seen fall back to the most frequent vowel, o.
  CHECK(rule.restore("h*t") == "hot");
  CHECK(rule.restore("*t") == "ot");  // (start, t) never occurred
  // Contexts are read around each '*' wherever it stands in a longer text.
  CHECK(rule.restore("a c*t d*g") == "a cat dog");
}

TEST_CASE("vowel metrics: a wider context wins where it was seen, and backs off where it was not",
          "[vowel_metrics]") {
  // Masked, "sit sat sat" is "s*t s*t s*t". One letter on each side cannot tell the three
  // apart: (s, t) -> a, 2 against 1. Two letters can: ("^s", "t ") was only ever i (the start
  // of the text), (" s", "t ") a, (" s", "t$") a.
  const std::string train = "sit sat sat";
  const VowelBaseline one = VowelBaseline::with_context(train, 1);
  const VowelBaseline two = VowelBaseline::with_context(train, 2);
  CHECK(two.name() == "most frequent vowel given 2 letters on each side");
  CHECK(one.restore("s*t x") == "sat x");
  CHECK(two.restore("s*t x") == "sit x");
  CHECK(two.restore("x s*t") == "x sat");
  // ("xs", "t$") never occurred: back off to (s, t) -> a; (b, b) never occurred either: back off
  // to the most frequent vowel, a.
  CHECK(two.restore("xs*t") == "xsat");
  CHECK(two.restore("b*b") == "bab");
  CHECK_THROWS_WITH(VowelBaseline::with_context(train, 0),
                    "VowelBaseline: letters on each side must be 1 to 8, got 0");
}

TEST_CASE("vowel metrics: the baselines score as expected on a tiny text", "[vowel_metrics]") {
  const std::string train = "the cat sat on the mat and the dog sat on the log";
  const std::string truth = "the dog sat on the cat";
  const std::string masked = mask_vowels(truth);
  REQUIRE(masked == "th* d*g s*t *n th* c*t");

  RestorationScore frequent, neighbours;
  frequent.add(masked, VowelBaseline::most_frequent(train).restore(masked), truth);
  neighbours.add(masked, VowelBaseline::with_context(train, 1).restore(masked), truth);
  // Training vowels: a 5 (cat sat mat and sat), e 4, o 4: always a -> "tha dag sat an tha cat":
  // 2 of the 6 hidden vowels.
  CHECK(frequent.vowels == 6);
  CHECK(frequent.correct_vowels == 2);
  // Neighbours: every context of the truth occurred in training with its vowel
  // (h*<space> -> e, d*g -> o, s*t -> a, <space>*n -> o, c*t -> a): all 6.
  CHECK(neighbours.correct_vowels == 6);
  CHECK(neighbours.vowel_accuracy() > frequent.vowel_accuracy());
  CHECK(neighbours.character_accuracy() == 1.0);
}
