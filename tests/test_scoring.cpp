// Testing a trained model (chapter 11): the results text says, from the scores themselves, which
// baselines the model beats, and how sure the model was of each test sentence's closest call;
// copy and translate count the sequences decoded exactly.
#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "temp_dir.hpp"
#include "tfm/tasks/report.hpp"
#include "tfm/tasks/scoring.hpp"

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
VowelScores scores(std::size_t windows, std::size_t model, std::size_t free) {
  VowelScores r;
  r.windows = windows;
  r.window_length = 40;
  r.model = {"this model, letters of the input kept (default)", vowels_right(model)};
  r.model_free = {"this model, free decoding", vowels_right(free)};
  return r;
}

}  // namespace

TEST_CASE("scoring: the results text lists the baselines the model beats and those it does not",
          "[scoring]") {
  VowelScores r = scores(10, 75, 70);
  r.baselines = {{"baseline: most frequent vowel ('e')", vowels_right(32)},
                 {"baseline: most frequent vowel given 2 letters on each side", vowels_right(78)},
                 {"baseline: a tie", vowels_right(75)}};
  r.sentences = {{"th* t*m*", "the tame", "the time", "the time", {5, 'i', 0.75f, 'a', 0.2f}},
                 {"*t", "at", "it", "at", {0, 'i', 0.375f, 'a', 0.625f}}};
  const std::string text = results_text(r);
  CHECK_THAT(text, Contains("10 windows of 40 characters, 100 hidden vowels"));
  CHECK_THAT(text, Contains("this model, letters of the input kept (default)"));
  CHECK_THAT(text, Contains("0.9375   0.7500"));  // characters (375 of 400), vowels (75 of 100)
  CHECK_THAT(text, Contains("restores more vowels than:\n  - most frequent vowel ('e')\n"
                            "and as many or fewer than:\n"
                            "  - most frequent vowel given 2 letters on each side\n  - a tie\n"));
  CHECK_THAT(
      text,
      Contains("  input     002's output  ours\n  th* t*m*  the tame      the time  (correct)\n"));
  CHECK_THAT(text, Contains("(correct)"));
  CHECK(text.find("(correct)") == text.rfind("(correct)"));  // only the first sentence is right
  CHECK_THAT(text,
             Contains("  th* t*m*                          t[i]me           i 0.75, a 0.20\n"));
  CHECK_THAT(text,
             Contains("  *t                                [i]t             i 0.38, a 0.62\n"));
}

TEST_CASE("scoring: at each vowel greedy decoding chose, that vowel leads; at another, it trails",
          "[scoring]") {
  testing::TempDir tmp("scoring", "corpus");
  std::string text;
  for (int i = 0; i < 12; ++i) text += "The old man walked down to the harbour every morning.\n";
  std::ofstream(tmp.file("corpus.txt")) << text;
  const VowelTask task(tmp.file("corpus.txt"));
  Config config = task.default_model();
  config.d_model = 32;
  config.n_heads = 2;
  config.d_ff = 64;
  config.n_encoder_layers = config.n_decoder_layers = 1;
  Transformer model(config, 3);  // untrained: its choices are arbitrary, but they are its own

  const std::string input = "th* t*m* tr*v*ll*r s*t d*wn";
  const std::string chosen = task.restore(model, input, 1, true);
  const std::vector<VowelChoice> choices = vowel_choices(model, task, input, chosen);
  REQUIRE(choices.size() == 8);
  for (const VowelChoice& c : choices) {
    INFO("position " << c.position);
    CHECK(input[c.position] == '*');
    CHECK(c.right == chosen[c.position]);
    CHECK(c.lead() > 0.0f);  // greedy took the likeliest vowel, given its own earlier choices
    CHECK(c.right_probability + c.rival_probability <= 1.0f + 1e-6f);
  }

  // Another vowel at the first `*`: the decoder reads the same prefix up to there, so the rival
  // of the vowel put in is greedy's choice, and it leads.
  std::string other = chosen;
  other[2] = chosen[2] == 'a' ? 'e' : 'a';
  const VowelChoice first = vowel_choices(model, task, input, other).front();
  CHECK(first.right == other[2]);
  CHECK(first.rival == chosen[2]);
  CHECK(first.lead() < 0.0f);
  CHECK(first.rival_probability == Approx(choices.front().right_probability).margin(1e-5));

  CHECK_THROWS_WITH(vowel_choices(model, task, input, "the time traveller sat dawns"),
                    Contains("with its vowels hidden is not"));
}

TEST_CASE("scoring: the results on another text name it and say where the model stands",
          "[scoring]") {
  VowelScores r = scores(7, 90, 80);
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

TEST_CASE("scoring: copy and translate report the exact sequences and a few examples",
          "[scoring]") {
  SequenceScores r;
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
