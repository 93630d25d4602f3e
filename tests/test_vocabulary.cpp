#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tfm/data/vocabulary.hpp"

using namespace tfm;
using Catch::Contains;

namespace {

// A file in the temporary directory, unique to this process, removed at the end of the test.
struct TempFile {
  explicit TempFile(const std::string& name)
      : path((std::filesystem::temp_directory_path() /
              ("tfm_vocabulary_" + std::to_string(::getpid()) + "_" + name))
                 .string()) {}
  TempFile(const std::string& name, const std::string& content) : TempFile(name) {
    std::ofstream(path, std::ios::binary) << content;
  }
  ~TempFile() { std::filesystem::remove(path); }
  std::string read() const {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
  }
  std::string path;
};

Vocabulary letters() {
  return Vocabulary(Tokenization::kCharacters, {"*", " ", "a", "b", "c"});
}

}  // namespace

TEST_CASE("Vocabulary: the four reserved ids come first, pad is 0", "[vocabulary]") {
  const Vocabulary v = letters();
  REQUIRE(v.size() == 9);
  CHECK(kPadId == 0);
  CHECK(v.id("<pad>") == kPadId);
  CHECK(v.id("<bos>") == kBosId);
  CHECK(v.id("<eos>") == kEosId);
  CHECK(v.id("<unk>") == kUnkId);
  CHECK(kBosId == 1);
  CHECK(kEosId == 2);
  CHECK(kUnkId == 3);
  CHECK(v.id("*") == kFirstSymbolId);
  CHECK(v.id(" ") == 5);
  CHECK(v.id("c") == 8);
  CHECK(v.symbol(8) == "c");
  CHECK(v.symbols() ==
        std::vector<std::string>{"<pad>", "<bos>", "<eos>", "<unk>", "*", " ", "a", "b", "c"});
  // Even a vocabulary without ordinary symbols has them.
  CHECK(Vocabulary(Tokenization::kWords, {}).size() == 4);
}

TEST_CASE("Vocabulary: characters encode and decode round trip", "[vocabulary]") {
  const Vocabulary v = letters();
  const std::vector<std::int32_t> ids = v.encode("ab *c", OnUnknown::kThrow);
  CHECK(ids == std::vector<std::int32_t>{6, 7, 5, 4, 8});
  CHECK(v.decode(ids) == "ab *c");
  // Reserved ids decode by name.
  CHECK(v.decode({kBosId, 6, kEosId, kPadId}) == "<bos>a<eos><pad>");
  CHECK(v.encode("", OnUnknown::kThrow).empty());
}

TEST_CASE("Vocabulary: UTF-8 characters are one symbol each", "[vocabulary]") {
  CHECK(utf8_characters("a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80") ==
        std::vector<std::string>{"a", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80"});
  // A byte that starts no valid sequence stands alone, nothing is dropped.
  CHECK(utf8_characters("a\xff\xc3") == std::vector<std::string>{"a", "\xff", "\xc3"});
  const Vocabulary v(Tokenization::kCharacters, {"\xc3\xa9", "t"});  // é, t
  CHECK(v.encode("t\xc3\xa9t", OnUnknown::kThrow) == std::vector<std::int32_t>{5, 4, 5});
  CHECK(v.decode({5, 4, 5}) == "t\xc3\xa9t");
}

TEST_CASE("Vocabulary: words encode and decode round trip", "[vocabulary]") {
  const Vocabulary v(Tokenization::kWords, {"i", "want", "a", "beer", "."});
  const auto ids = v.encode("  i want\ta beer .\n", OnUnknown::kThrow);
  CHECK(ids == std::vector<std::int32_t>{4, 5, 6, 7, 8});
  CHECK(v.decode(ids) == "i want a beer .");
  CHECK(v.encode("<bos> i <eos>", OnUnknown::kThrow) ==
        std::vector<std::int32_t>{kBosId, 4, kEosId});
}

TEST_CASE("Vocabulary: unknown symbols become <unk> when allowed", "[vocabulary]") {
  const Vocabulary v = letters();
  CHECK(v.encode("a?b", OnUnknown::kUseUnk) == std::vector<std::int32_t>{6, kUnkId, 7});
  // One <unk> per character, not per byte.
  CHECK(v.encode("\xc3\xa9"
                 "a",
                 OnUnknown::kUseUnk) == std::vector<std::int32_t>{kUnkId, 6});
  const Vocabulary w(Tokenization::kWords, {"ich", "ein"});
  CHECK(w.encode("ich bin ein", OnUnknown::kUseUnk) == std::vector<std::int32_t>{4, kUnkId, 5});
}

TEST_CASE("Vocabulary: strict mode names the unknown symbol and its position", "[vocabulary]") {
  const Vocabulary v = letters();
  CHECK_THROWS_AS(v.encode("ab1c", OnUnknown::kThrow), VocabularyError);
  CHECK_THROWS_WITH(v.encode("ab1c", OnUnknown::kThrow),
                    Contains("unknown character '1' at index 2 of \"ab1c\"") &&
                        Contains("the vocabulary knows '*' ' ' 'a' 'b' 'c'"));
  CHECK_THROWS_WITH(v.encode("ab\xc3\xa9", OnUnknown::kThrow),
                    Contains("unknown character '\xc3\xa9' at index 2"));
  CHECK_THROWS_WITH(v.encode("a\tb", OnUnknown::kThrow),
                    Contains("unknown character '\\x09' at index 1"));
  const Vocabulary w(Tokenization::kWords, {"ich", "ein"});
  CHECK_THROWS_WITH(w.encode("ich ein bier", OnUnknown::kThrow),
                    Contains("unknown word 'bier' at index 2"));
  CHECK_THROWS_WITH(v.id("z"), Contains("character 'z' is not in the vocabulary"));
}

TEST_CASE("Vocabulary: ids out of range and invalid symbol lists are errors", "[vocabulary]") {
  const Vocabulary v = letters();
  CHECK_THROWS_WITH(v.decode({6, 9}), Contains("id 9 is outside the vocabulary (ids 0 .. 8)"));
  CHECK_THROWS_WITH(v.symbol(-1), Contains("id -1 is outside"));
  CHECK_THROWS_WITH(Vocabulary(Tokenization::kCharacters, {"a", "b", "a"}),
                    Contains("symbol 'a' is given twice (id 4 already)"));
  CHECK_THROWS_WITH(Vocabulary(Tokenization::kWords, {"x", "<eos>"}),
                    Contains("symbol '<eos>' is given twice (id 2 already)"));
  CHECK_THROWS_WITH(Vocabulary(Tokenization::kCharacters, {"ab"}),
                    Contains("'ab' is not a single character"));
  CHECK_THROWS_WITH(Vocabulary(Tokenization::kWords, {"new york"}),
                    Contains("the word 'new york' contains whitespace"));
  CHECK_THROWS_WITH(Vocabulary(Tokenization::kWords, {""}), Contains("cannot be empty"));
}

TEST_CASE("Vocabulary: save and load round trip", "[vocabulary]") {
  SECTION("characters, with a space, a backslash and a tab") {
    const Vocabulary v(Tokenization::kCharacters, {"*", " ", "\\", "\t", "a", "\xc3\xa9"});
    TempFile file("chars.txt");
    v.save(file.path);
    // One symbol per line; the invisible or ambiguous ones escaped.
    CHECK(file.read() ==
          "# tfm vocabulary v1 characters\n<pad>\n<bos>\n<eos>\n<unk>\n*\n\\s\n\\\\\n\\x09\na\n"
          "\xc3\xa9\n");
    const Vocabulary loaded = Vocabulary::load(file.path);
    CHECK(loaded == v);
    CHECK(loaded.tokenization() == Tokenization::kCharacters);
  }
  SECTION("words") {
    const Vocabulary v(Tokenization::kWords, {"i", "want", "a", "beer", "."});
    TempFile file("words.txt");
    v.save(file.path);
    const Vocabulary loaded = Vocabulary::load(file.path);
    CHECK(loaded == v);
    CHECK(loaded.tokenization() == Tokenization::kWords);
    CHECK(loaded.id("beer") == 7);
  }
  SECTION("Windows line endings are accepted") {
    TempFile file("crlf.txt",
                  "# tfm vocabulary v1 words\r\n<pad>\r\n<bos>\r\n<eos>\r\n<unk>\r\nhallo\r\n");
    CHECK(Vocabulary::load(file.path) == Vocabulary(Tokenization::kWords, {"hallo"}));
  }
}

TEST_CASE("Vocabulary: a malformed file gives a clear error", "[vocabulary]") {
  const std::string header = "# tfm vocabulary v1 characters\n";
  const std::string reserved = "<pad>\n<bos>\n<eos>\n<unk>\n";
  const auto error_of = [](const std::string& name, const std::string& content) {
    TempFile file(name, content);
    try {
      Vocabulary::load(file.path);
    } catch (const VocabularyError& e) {
      const std::string message = e.what();
      CHECK_THAT(message, Contains(file.path));
      return message;
    }
    FAIL("no error for " << name);
    return std::string();
  };
  CHECK_THAT(error_of("empty", ""), Contains("is empty; expected the header"));
  CHECK_THAT(error_of("header", "<pad>\n<bos>\n"),
             Contains("line 1: expected the header '# tfm vocabulary v1 characters' or") &&
                 Contains("got '<pad>'"));
  CHECK_THAT(error_of("short", header + "<pad>\n<bos>\n"),
             Contains("ends after 3 lines; the 4 reserved symbols"));
  CHECK_THAT(error_of("order", header + "<pad>\n<eos>\n<bos>\n<unk>\n"),
             Contains("line 3: expected the reserved symbol '<bos>' (id 1), got '<eos>'"));
  CHECK_THAT(error_of("blank", header + reserved + "a\n\nb\n"),
             Contains("line 7: empty line (write a space as \\s)"));
  CHECK_THAT(error_of("escape", header + reserved + "a\n\\q\n"),
             Contains("line 7: unknown escape '\\q'"));
  CHECK_THAT(error_of("duplicate", header + reserved + "a\nb\na\n"),
             Contains("line 8: symbol 'a' already appears on line 6"));
  CHECK_THAT(error_of("reserved-again", header + reserved + "a\n<unk>\n"),
             Contains("line 7:") && Contains("'<unk>'"));
  CHECK_THAT(error_of("two-chars", header + reserved + "ab\n"),
             Contains("line 6: 'ab' is not a single character"));

  const std::string missing =
      (std::filesystem::temp_directory_path() / "tfm_no_such_dir" / "vocab.txt").string();
  CHECK_THROWS_WITH(Vocabulary::load(missing),
                    Contains("cannot open vocabulary file '" + missing + "'") &&
                        Contains("No such file or directory"));
  CHECK_THROWS_WITH(Vocabulary::load(std::filesystem::temp_directory_path().string()),
                    Contains("it is a directory"));
}

TEST_CASE("Vocabulary: parse reads the text load reads, with the same errors",
          "[vocabulary][bad-input]") {
  const std::string words = "# tfm vocabulary v1 words\n<pad>\n<bos>\n<eos>\n<unk>\nhello\nw\n";
  CHECK(Vocabulary::parse(words, "v.txt") == Vocabulary(Tokenization::kWords, {"hello", "w"}));
  CHECK_THROWS_WITH(
      Vocabulary::parse(words + "w\\sx\n", "v.txt"),
      Contains("vocabulary file 'v.txt', line 8: the word 'w x' contains whitespace"));
  CHECK_THROWS_WITH(Vocabulary::parse("", "v.txt"), Contains("vocabulary file 'v.txt' is empty"));
  CHECK_THROWS_WITH(
      Vocabulary::parse("# tfm vocabulary v1 characters\n<pad>\n<bos>\n<eos>\n<unk>\n\\x4\n",
                        "v.txt"),
      Contains("vocabulary file 'v.txt', line 6: unknown escape '\\x'"));
  // A NUL byte and a lone UTF-8 lead byte are one-byte "characters": kept, escaped on saving.
  const Vocabulary bytes = Vocabulary::parse(
      std::string("# tfm vocabulary v1 characters\n<pad>\n<bos>\n<eos>\n<unk>\n\\x00\n\xC3\n"),
      "b");
  CHECK(bytes.size() == 6);
  CHECK(bytes.symbol(4) == std::string(1, '\0'));
}
