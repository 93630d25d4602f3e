// The translation project's baselines: word by word from IBM Model 1 alignments on pairs whose
// alignment is plain to see, unseen words copied, punctuation kept; Apertium, run for real.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "translate/baselines.hpp"
#include "translate/bible.hpp"
#include "translate/translation_metrics.hpp"
#include "translate/verse_alignment.hpp"
#include "translate/verse_split.hpp"

using namespace translate;

TEST_CASE("WordByWord learns which word translates which from the pairs alone", "[baselines]") {
  const std::vector<TextPair> pairs = {
      {"la casa", "the house"},         {"la mesa", "the table"},          {"una casa", "a house"},
      {"una mesa roja", "a red table"}, {"la casa roja", "the red house"}, {"casa", "house"}};
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
  const std::vector<TextPair> pairs = {{"vió á David", "saw David"},
                                       {"vió á Saúl", "saw Saul"},
                                       {"vió", "saw"},
                                       {"David", "David"},
                                       {"Saúl", "Saul"}};
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

// The two simple baselines on the 1,231 real test verses, scored by the program and by NLTK's
// corpus_bleu on the same 13a tokens (tests/fixtures/bleu/nltk_test_set.txt, written by
// make_bleu_fixtures.py from `translate --export-test-set`). Without smoothing, as NLTK: copying
// has no 4-gram right, so both say 0.
TEST_CASE("on the test verses, BLEU agrees with NLTK to 0.01", "[baselines][bleu]") {
  std::ifstream in(tfm::testing::fixture_path("bleu/nltk_test_set.txt"));
  REQUIRE(in);
  std::map<std::string, double> nltk;
  for (std::string name, line; std::getline(in, line);)
    if (line[0] != '#')
      nltk[line.substr(0, line.find(' '))] = std::stod(line.substr(line.find(' ') + 1));
  const SplitVerses parts =
      split_verses(align_verses(read_parallel(spanish_bible(), english_bible()).verses).pairs);
  std::vector<TextPair> train;
  for (const ParallelVerse& v : parts[static_cast<int>(Part::kTrain)])
    train.emplace_back(v.spanish, v.english);
  const WordByWord model = WordByWord::learn(train);
  std::vector<std::string> copy, word_by_word, references;
  for (const ParallelVerse& v : parts[static_cast<int>(Part::kTest)]) {
    copy.push_back(v.spanish);
    word_by_word.push_back(model.translate(v.spanish));
    references.push_back(v.english);
  }
  REQUIRE(references.size() == 1231);
  CHECK(corpus_bleu(copy, references, BleuSmoothing::kNone).bleu ==
        Approx(nltk.at("copy")).margin(0.01));
  CHECK(corpus_bleu(word_by_word, references, BleuSmoothing::kNone).bleu ==
        Approx(nltk.at("word_by_word")).margin(0.01));
}

TEST_CASE("Modernisation writes the 1909 Spanish as today, and maps names", "[baselines]") {
  CHECK(Modernisation::modern_spelling("Y fué á Moab, é Isaac ó Jacob.") ==
        "Y fue a Moab, e Isaac o Jacob.");
  CHECK(Modernisation::modern_spelling("Á éste dió pan; y levantóse, y díjole: Fuése.") ==
        "A este dio pan; y se levantó, y le dijo: Se fue.");
  CHECK(Modernisation::modern_spelling("haréle bien") == "le haré bien");
  // Not a verb with a pronoun: an accent elsewhere, a noun in -os, a gerund.
  CHECK(Modernisation::modern_spelling("los ángeles de los Judíos, diciéndole") ==
        "los ángeles de los Judíos, diciéndole");
  const std::vector<TextPair> pairs = {
      {"y Jehová habló", "and Yahweh spoke"}, {"y Moisés dijo", "and Moses said"},
      {"y Jehová dijo", "and Yahweh said"},   {"y Moisés habló", "and Moses spoke"},
      {"habló Jehová", "Yahweh spoke"},       {"y Aarón", "and Aaron"}};
  const Modernisation m = Modernisation::learn(pairs, WordByWord::learn(pairs), 2);
  CHECK(m.names().size() == 2);
  CHECK(m.names().at("Jehová") == "Yahweh");
  CHECK(m.names().at("Moisés") == "Moses");
  CHECK(m.apply("Y fué Jehová á Moisés.") == "Y fue Yahweh a Moses.");
  CHECK(m.describe().find("2 names of the training verses") != std::string::npos);
}
