#include "pronounce/lexicon.hpp"

#include <algorithm>
#include <map>

#include "tfm/support/text_file.hpp"

namespace pronounce {

namespace {

// One line of the lexicon, read left to right; every error names the file, line and column.
class LineReader {
 public:
  LineReader(const std::string& line, const std::string& name, std::size_t number)
      : line_(line), where_(name + ", line " + std::to_string(number)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw DictionaryError(where_ + ": " + what + " (column " + std::to_string(pos_ + 1) + " of '" +
                          (line_.size() > 80 ? line_.substr(0, 80) + "..." : line_) + "')");
  }
  void skip_spaces() {
    while (pos_ < line_.size() &&
           (line_[pos_] == ' ' || line_[pos_] == '\t' || line_[pos_] == '\r'))
      ++pos_;
  }
  bool peek(char c) {
    skip_spaces();
    return pos_ < line_.size() && line_[pos_] == c;
  }
  void expect(char c, const char* what) {
    if (!peek(c)) fail(std::string("expected '") + c + "' " + what);
    ++pos_;
  }
  std::string quoted() {
    expect('"', "to open the word");
    const std::size_t end = line_.find('"', pos_);
    if (end == std::string::npos) fail("the word's quote is not closed");
    std::string word = line_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return word;
  }
  std::string atom(const char* what) {
    skip_spaces();
    const std::size_t start = pos_;
    while (pos_ < line_.size() && line_[pos_] != ' ' && line_[pos_] != '\t' && line_[pos_] != '(' &&
           line_[pos_] != ')' && line_[pos_] != '"')
      ++pos_;
    if (pos_ == start) fail(std::string("expected ") + what);
    return line_.substr(start, pos_ - start);
  }
  void expect_end() {
    skip_spaces();
    if (pos_ != line_.size()) fail("unexpected text after the entry");
  }
  const std::string& where() const { return where_; }

 private:
  const std::string& line_;
  std::string where_;
  std::size_t pos_ = 0;
};

}  // namespace

const std::vector<std::string>& phoneme_symbols() {
  static const std::vector<std::string> symbols = {
      // 15 vowels
      "aa", "ae", "ah", "ao", "aw", "ay", "eh", "er", "ey", "ih", "iy", "ow", "oy", "uh", "uw",
      // 24 consonants
      "b", "ch", "d", "dh", "f", "g", "hh", "jh", "k", "l", "m", "n", "ng", "p", "r", "s", "sh",
      "t", "th", "v", "w", "y", "z", "zh"};
  return symbols;
}

std::string stressless_phoneme(const std::string& phone) {
  std::string p = phone;
  while (!p.empty() && p.back() >= '0' && p.back() <= '9') p.pop_back();
  if (p == "ax") p = "ah";  // Festival's unstressed schwa is CMUdict's AH0
  const auto& known = phoneme_symbols();
  if (std::find(known.begin(), known.end(), p) == known.end())
    throw std::invalid_argument("unknown phone '" + phone +
                                "' (not one of CMUdict's 39 phonemes, nor ax)");
  return p;
}

std::vector<DictionaryWord> parse_festival_lexicon(const std::string& text,
                                                   const std::string& name) {
  std::map<std::string, std::vector<std::vector<std::string>>> entries;
  std::size_t number = 0, start = 0;
  bool header = false;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    ++number;
    if (number == 1) {
      if (line != "MNCL" && line != "MNCL\r")
        throw DictionaryError(
            name + ", line 1: expected the header 'MNCL' of a Festival compiled lexicon, got '" +
            line.substr(0, 80) + "'");
      header = true;
      continue;
    }
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;  // blank lines
    LineReader in(line, name, number);
    in.expect('(', "to open the entry");
    std::string word = in.quoted();
    if (word.empty()) in.fail("the word is empty");
    for (char& c : word) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      if (c < 'a' || c > 'z')
        in.fail("the word '" + word + "' has a character other than a letter a-z");
    }
    in.atom("a part of speech (e.g. nil)");
    in.expect('(', "to open the syllables");
    std::vector<std::string> phonemes;
    while (!in.peek(')')) {
      in.expect('(', "to open a syllable");
      in.expect('(', "to open a syllable's phones");
      if (in.peek(')')) in.fail("a syllable without phones");
      while (!in.peek(')')) {
        const std::string phone = in.atom("a phone");
        try {
          phonemes.push_back(stressless_phoneme(phone));
        } catch (const std::invalid_argument& e) {
          in.fail(e.what());
        }
      }
      in.expect(')', "to close a syllable's phones");
      const std::string stress = in.atom("the syllable's stress (0, 1 or 2)");
      if (stress != "0" && stress != "1" && stress != "2")
        in.fail("a stress must be 0, 1 or 2, got '" + stress + "'");
      in.expect(')', "to close a syllable");
    }
    in.expect(')', "to close the syllables");
    in.expect(')', "to close the entry");
    in.expect_end();
    if (phonemes.empty()) in.fail("the word '" + word + "' has no phones");
    auto& list = entries[word];
    if (std::find(list.begin(), list.end(), phonemes) == list.end())
      list.push_back(std::move(phonemes));
  }
  if (!header) throw DictionaryError(name + ": the dictionary is empty (no 'MNCL' header)");
  if (entries.empty()) throw DictionaryError(name + ": the dictionary has a header but no entries");
  std::vector<DictionaryWord> words;
  words.reserve(entries.size());
  for (auto& [word, pronunciations] : entries) words.push_back({word, std::move(pronunciations)});
  return words;
}

std::vector<DictionaryWord> read_festival_lexicon(const std::string& path) {
  return parse_festival_lexicon(tfm::read_text_file(path, "dictionary"), path);
}

}  // namespace pronounce
