// The translation project's subwords: words and their space marks, merges learnt as by hand,
// the exact round trip text -> pieces -> text on both Bibles, unknown characters, and the
// tokenizer file (saved in a checkpoint) read back or refused with the file and the line.
#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "translate/bible.hpp"
#include "translate/bpe.hpp"
#include "translate/verse_alignment.hpp"

using namespace translate;

namespace {
using Pieces = std::vector<std::string>;
const std::string M = kSpaceMark;

std::string parse_error(const std::string& text) {
  try {
    Bpe::parse(text, "tokenizer.txt");
  } catch (const TokenizerError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("bpe_words cuts words and punctuation and marks the spaces", "[bpe]") {
  CHECK(bpe_words("al mundo, que") == Pieces{M + "al", M + "mundo", ",", M + "que"});
  CHECK(bpe_words("¿Quién? «sí»") == Pieces{M + "¿", "Quién", "?", M + "«", "sí", "»"});
  CHECK(bpe_words("doesn’t 3:16") == Pieces{M + "doesn", "’", "t", M + "3", ":", "16"});
  CHECK(bpe_words("  a \t b ") == Pieces{M + "a", M + "b"});
  CHECK(bpe_words("").empty());
}

TEST_CASE("Bpe::learn merges the most frequent pair first, ties in byte order", "[bpe]") {
  // Sennrich et al.'s example: low x5, lower x2, newest x6, widest x3. Counted by hand: e+s and
  // s+t occur 9 times (tie: "e" < "s"), then es+t 9; l+o, o+w and ▁+l 7 ("l" < "o" < "▁"), ...
  std::vector<std::string> texts;
  for (const auto& [word, times] : std::vector<std::pair<std::string, int>>{
           {"low", 5}, {"lower", 2}, {"newest", 6}, {"widest", 3}})
    for (int i = 0; i < times; ++i) texts.push_back(word);
  const Bpe bpe = Bpe::learn(texts, 100);
  REQUIRE(bpe.merges().size() >= 6);
  const std::vector<std::pair<std::string, std::string>> first(bpe.merges().begin(),
                                                               bpe.merges().begin() + 6);
  CHECK(first == std::vector<std::pair<std::string, std::string>>{
                     {"e", "s"}, {"es", "t"}, {"l", "o"}, {"lo", "w"}, {M, "low"}, {"e", "w"}});
  CHECK(bpe.characters() == Pieces{"d", "e", "i", "l", "n", "o", "r", "s", "t", "w", M});
  CHECK(bpe.encode("lowest") == Pieces{M + "low", "est"});
  CHECK(bpe.encode("low newest") == Pieces{M + "low", M + "newest"});
  // Learning stops once no pair occurs twice; the symbols stop at their number.
  CHECK(Bpe::learn(texts, 13).symbols().size() == 13);
  CHECK(Bpe::learn({"ab"}, 100).merges().empty());
  CHECK_THROWS_AS(Bpe::learn({" ", ""}, 100), std::invalid_argument);
}

TEST_CASE("a character never seen in training is <unk>, and is named", "[bpe]") {
  const Bpe bpe = Bpe::learn({"la casa", "la mesa"}, 30);
  CHECK(bpe.encode("la ∑x") == Pieces{M + "la", M, "<unk>", "<unk>"});
  CHECK(bpe.unknown_characters("la ∑x ∑ casa") == Pieces{"∑", "x"});
  CHECK(bpe.unknown_characters("la casa").empty());
}

TEST_CASE("text -> pieces -> text is exact on both Bibles", "[bpe]") {
  const AlignedVerses aligned =
      align_verses(read_parallel(spanish_bible(), english_bible()).verses);
  std::vector<std::string> texts;
  for (const ParallelVerse& v : aligned.pairs) {
    texts.push_back(v.spanish);
    texts.push_back(v.english);
  }
  const Bpe bpe = Bpe::learn(std::vector<std::string>(texts.begin(), texts.begin() + 4000), 2000);
  CHECK(bpe.symbols().size() == 2000);
  std::size_t unknown = 0;
  for (const std::string& text : texts) {
    const Pieces pieces = bpe.encode(text);
    if (bpe.unknown_characters(text).empty()) {
      REQUIRE(Bpe::decode(pieces) == text);
    } else {
      ++unknown;
    }
  }
  CHECK(unknown < texts.size() / 100);
}

TEST_CASE("the tokenizer file round-trips and names the line of what it refuses",
          "[bpe][bad-input]") {
  const Bpe bpe = Bpe::learn({"la casa es la casa", "the house is the house"}, 40);
  const Bpe again = Bpe::parse(bpe.to_text(), "tokenizer.txt");
  CHECK(again.characters() == bpe.characters());
  CHECK(again.merges() == bpe.merges());
  CHECK(again.encode("la house") == bpe.encode("la house"));
  CHECK(again.to_text() == bpe.to_text());

  const std::string ok = "# BPE\ncharacters 2\na\nb\nmerges 1\na b\n";
  CHECK(parse_error(ok).empty());
  CHECK(parse_error("") == "tokenizer.txt line 1: the file ends early");
  CHECK(parse_error("BPE\n") == "tokenizer.txt line 1: expected the header '# BPE ...', got 'BPE'");
  CHECK(parse_error("# BPE\ncharacters x\n") ==
        "tokenizer.txt line 2: expected 'characters N', got 'characters x'");
  CHECK(parse_error("# BPE\ncharacters 3\na\nb\nmerges 1\n") ==
        "tokenizer.txt line 5: expected one character (UTF-8) that is not whitespace, got 'merges "
        "1'");
  CHECK(parse_error("# BPE\ncharacters 2\na\na\n") ==
        "tokenizer.txt line 4: the character 'a' is listed twice");
  CHECK(parse_error("# BPE\ncharacters 1\n \n") ==
        "tokenizer.txt line 3: expected one character (UTF-8) that is not whitespace, got ' '");
  // Two bytes that are not UTF-8 alone, but one character side by side (fuzz/regressions/bpe).
  CHECK(parse_error("# BPE\ncharacters 2\n\xDF\n\x97\n") ==
        "tokenizer.txt line 3: expected one character (UTF-8) that is not whitespace, got '\xDF'");
  CHECK(parse_error("# BPE\ncharacters 2\na\nb\nmerges 1\nab b\n") ==
        "tokenizer.txt line 6: the merge 'ab b' joins 'ab', which no earlier line makes");
  CHECK(parse_error("# BPE\ncharacters 2\na\nb\nmerges 2\na b\na b\n") ==
        "tokenizer.txt line 7: the merge 'a b' is listed twice");
  CHECK(parse_error("# BPE\ncharacters 2\na\nb\nmerges 1\na  b\n") ==
        "tokenizer.txt line 6: expected a merge 'LEFT RIGHT', got 'a  b'");
  CHECK(parse_error("# BPE\ncharacters 2\na\nb\nmerges 2\na b\n") ==
        "tokenizer.txt line 7: the file ends early");
  CHECK(parse_error(ok + "more\n") == "tokenizer.txt line 7: unexpected text after the last merge");
  CHECK(parse_error("# BPE\ncharacters 99999999999\n") ==
        "tokenizer.txt line 2: expected 'characters N', got 'characters 99999999999'");
}
