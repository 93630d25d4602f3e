// Testing a trained model (chapter 11): the results text says, from the scores themselves, which
// baselines the model beats; copy and translate count the sequences decoded exactly.
#include <catch2/catch.hpp>
#include <string>

#include "tfm/decode/report.hpp"

using namespace tfm;
using Catch::Contains;

namespace {

// A score with `correct` of 100 hidden vowels right (and every other character right).
RestorationScore vowels_right(std::size_t correct) {
  RestorationScore s;
  s.characters = 400;
  s.correct_characters = 300 + correct;
  s.vowels = 100;
  s.correct_vowels = correct;
  return s;
}

// The results of `windows` windows of 40 characters: the model (both decodings) with `model`
// vowels right and `free` for its free decoding.
VowelEvaluation evaluation(std::size_t windows, std::size_t model, std::size_t free) {
  VowelEvaluation r;
  r.windows = windows;
  r.window_length = 40;
  r.model = {"this model, letters of the input kept (default)", vowels_right(model)};
  r.model_free = {"this model, free decoding", vowels_right(free)};
  return r;
}

}  // namespace

TEST_CASE("evaluation: the results text lists the baselines the model beats and those it does not",
          "[evaluation]") {
  VowelEvaluation r = evaluation(10, 75, 70);
  r.baselines = {{"baseline: most frequent vowel ('e')", vowels_right(32)},
                 {"baseline: most frequent vowel given 2 letters on each side", vowels_right(78)},
                 {"baseline: a tie", vowels_right(75)}};
  r.sentences = {{"th* t*m*", "the tame", "the time", "the time"}, {"*t", "at", "it", "at"}};
  const std::string text = results_text(r);
  CHECK_THAT(text, Contains("10 windows of 40 characters, 100 hidden vowels"));
  CHECK_THAT(text, Contains("this model, letters of the input kept (default)"));
  CHECK_THAT(text, Contains("0.9375   0.7500"));  // characters (375 of 400), vowels (75 of 100)
  CHECK_THAT(text, Contains("restores more vowels than:\n  - most frequent vowel ('e')\n"
                            "and as many or fewer than:\n"
                            "  - most frequent vowel given 2 letters on each side\n  - a tie\n"));
  CHECK_THAT(text, Contains("ours: the time"));
  CHECK_THAT(text, Contains("(correct)"));
  CHECK(text.find("(correct)") == text.rfind("(correct)"));  // only the first sentence is right
}

TEST_CASE("evaluation: the results on another text name it and say where the model stands",
          "[evaluation]") {
  VowelEvaluation r = evaluation(7, 90, 80);
  r.baselines = {{"baseline: most frequent vowel given 3 letters on each side", vowels_right(81)}};
  const std::string text = test_corpus_results_text(r, "Mark.Twain-Tom.Sawyer.txt");
  CHECK_THAT(text, Contains("Another text, Mark.Twain-Tom.Sawyer.txt: 7 windows of 40 characters, "
                            "100 hidden vowels\n"));
  CHECK_THAT(text, Contains("0.9750   0.9000"));
  CHECK_THAT(
      text,
      Contains("restores more vowels than:\n  - most frequent vowel given 3 letters on each side\n"
               "and as many or fewer than:\n  - none\n"));
  CHECK(text.find("002") == std::string::npos);  // no reference sentences here
}

TEST_CASE("evaluation: copy and translate report the exact sequences and a few examples",
          "[evaluation]") {
  SequenceEvaluation r;
  r.exact = 1;
  r.total = 2;
  r.examples = {{"ich mochte ein bier", "i want a beer .", "i want a beer ."},
                {"ich mochte ein cola", "i want a beer .", "i want a coke ."}};
  const std::string text = results_text(r);
  CHECK_THAT(text, Contains("ich mochte ein bier  ->  i want a beer .   (correct)"));
  CHECK_THAT(text,
             Contains("ich mochte ein cola  ->  i want a beer .   (expected: i want a coke .)"));
  CHECK_THAT(text, Contains("held-out sequences decoded exactly: 1 of 2 (50.0%)"));
}
