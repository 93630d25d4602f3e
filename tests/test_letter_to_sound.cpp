// Festival's letter-to-sound trees (the pronunciation project's baseline): hand-made rules, malformed
// rule files, and the rules Debian ships.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "pronounce/letter_to_sound.hpp"

using namespace pronounce;

namespace {
using Phones = std::vector<std::string>;

const char* kRules =
    ";;; hand-made rules in Festival's format\n"
    "(set! test_rules '(\n"
    "(a\n"
    " ((n.name is b)\n"
    "  (((ae1 0.9) (ax0 0.1) ae1))\n"
    "  ((p.p.name is 0)\n"  // the first letter: two back is beyond the '#'
    "   (((ey1 1) ey1))\n"
    "   (((_epsilon_ 1) _epsilon_)))))\n"
    "(b\n"
    " (((b 1) b)))\n"
    "(x\n"
    " ((p.name is #)\n"
    "  (((z 1) z))\n"
    "  (((k-s 1) k-s))))\n"
    "))\n";

std::string parse_error(const std::string& text) {
  try {
    LetterToSound::parse(text, "rules.scm");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("letter to sound: the trees are walked as Festival walks them", "[letter_to_sound]") {
  const LetterToSound lts = LetterToSound::parse(kRules, "rules.scm");
  CHECK(lts.letters() == 3);
  CHECK(lts.nodes() == 9);  // a: 2 questions, 3 leaves; b: 1 leaf; x: 1 question, 2 leaves
  CHECK(lts.pronounce("ab") == Phones{"ae", "b"});       // a before b
  CHECK(lts.pronounce("a") == Phones{"ey"});             // a first (p.p is beyond the word)
  CHECK(lts.pronounce("ba") == Phones{"b"});             // a elsewhere: nothing
  CHECK(lts.pronounce("xax") == Phones{"z", "k", "s"});  // x first: z; else k-s: two phonemes
  CHECK(lts.pronounce("AB") == Phones{"ae", "b"});       // capitals lowercased
  CHECK_THROWS_WITH(lts.pronounce("abc"), Catch::Contains("no rule for the letter 'c' of \"abc\""));
}

TEST_CASE("letter to sound: a malformed rule file is an error naming the file and the line",
          "[letter_to_sound][bad-input]") {
  CHECK_THAT(parse_error("(set! r '((a (((b 1) b)))"),
             Catch::Contains("rules.scm, line 1: the '(' opened here is never closed"));
  CHECK_THAT(parse_error("(set! r '((a (((b 1) b)))))\n)"),
             Catch::Contains("rules.scm, line 2: a ')' that closes nothing"));
  CHECK_THAT(parse_error("(set! r '((a (((qq1 1) qq1)))))"),
             Catch::Contains("rules.scm, line 1: the leaf 'qq1': unknown phone 'qq1'"));
  CHECK_THAT(parse_error("(set! r '(\n(a ((n.name in b) (((b 1) b)) (((b 1) b))))))"),
             Catch::Contains("rules.scm, line 2: expected a question (F.name is V)"));
  CHECK_THAT(parse_error("(set! r '(\n(a ((n.n.n.n.name is b) (((b 1) b)) (((b 1) b))))))"),
             Catch::Contains("rules.scm, line 2: expected a question"));
  CHECK_THAT(parse_error("(set! r '(\n\n(a b c)))"),
             Catch::Contains("rules.scm, line 3: expected a rule (LETTER TREE)"));
  CHECK_THAT(parse_error("(set! r '((a (((b 1) b))) (a (((b 1) b)))))"),
             Catch::Contains("a second tree for the letter 'a'"));
  CHECK_THAT(parse_error("(define x 1)"), Catch::Contains("rules.scm: no rules found"));
  CHECK_THAT(parse_error("(set! r '())"), Catch::Contains("rules.scm: the rules are empty"));
  CHECK_THAT(parse_error(std::string(2000, '(')), Catch::Contains("nested more than 500 deep"));
  CHECK(parse_error(kRules).empty());
  CHECK_THROWS_WITH(LetterToSound::from_file("/nonexistent.scm"),
                    Catch::Contains("cannot open letter-to-sound rules '/nonexistent.scm'"));
}

TEST_CASE("letter to sound: Debian's CMU rules have a tree for every letter", "[letter_to_sound]") {
  REQUIRE(std::filesystem::exists(kCmuLtsRulesPath));  // festlex-cmu, a build package
  const LetterToSound lts = LetterToSound::from_file(kCmuLtsRulesPath);
  CHECK(lts.letters() == 26);
  CHECK(lts.nodes() > 10000);
  for (const std::string word : {"cat", "through", "pronunciation", "xylophone"}) {
    INFO(word);
    CHECK_FALSE(lts.pronounce(word).empty());
  }
  CHECK(lts.pronounce("cat") == Phones{"k", "ae", "t"});
}
