// The translation project's baselines: word by word from IBM Model 1 alignments on pairs whose
// alignment is plain to see, unseen words copied, punctuation kept; Apertium, run for real.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "translate/baselines.hpp"

using namespace translate;

TEST_CASE("WordByWord learns which word translates which from the pairs alone", "[baselines]") {
  const std::vector<TextPair> pairs = {{"la casa", "the house"},   {"la mesa", "the table"},
                                       {"una casa", "a house"},     {"una mesa roja", "a red table"},
                                       {"la casa roja", "the red house"}, {"casa", "house"}};
  const WordByWord model = WordByWord::learn(pairs);
  CHECK(model.translate_word("casa") == "house");
  CHECK(model.translate_word("la") == "the");
  CHECK(model.translate_word("roja") == "red");
  CHECK(model.translate_word("perro") == "perro");  // never seen: copied
  CHECK(model.known_words() == 5);
  CHECK(model.translate("la mesa, una casa.") == "the table, a house.");
  CHECK(model.translate("¿la casa?") == "¿the house?");
}

TEST_CASE("a source word nothing aligns to is left out", "[baselines]") {
  // "á" (the personal a of 1909 Spanish) has no English word: every English word is explained
  // better by another Spanish word, so "á" is never aligned.
  const std::vector<TextPair> pairs = {{"vió á David", "saw David"}, {"vió á Saúl", "saw Saul"},
                                       {"vió", "saw"}, {"David", "David"}, {"Saúl", "Saul"}};
  const WordByWord model = WordByWord::learn(pairs);
  CHECK(model.translate_word("á").empty());
  CHECK(model.translate("vió á Saúl") == "saw Saul");
}

TEST_CASE("Apertium translates for real, and a failure says why", "[baselines]") {
  const ApertiumRun run = run_apertium({"La casa es roja.", "Jehová es mi pastor."}, "spa-eng");
  REQUIRE(run.ran);
  REQUIRE(run.outputs.size() == 2);
  CHECK(run.outputs[0] == "The house is red.");
  CHECK(run.outputs[1].find("shepherd") != std::string::npos);
  const ApertiumRun bad = run_apertium({"x"}, "xx-yy");
  CHECK_FALSE(bad.ran);
  CHECK(bad.problem.rfind("apertium xx-yy failed", 0) == 0);
}
