#include "tfm/data/vocabulary.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tfm/support/text_file.hpp"

namespace tfm {
namespace {

constexpr const char* kHeaderPrefix = "# tfm vocabulary v1 ";
// Far more than any vocabulary of this project (tens of thousands of short lines).
constexpr std::uintmax_t kMaxVocabularyFileBytes = std::uintmax_t{64} << 20;

const char* tokenization_name(Tokenization t) {
  return t == Tokenization::kCharacters ? "characters" : "words";
}

const char* symbol_kind(Tokenization t) {
  return t == Tokenization::kCharacters ? "character" : "word";
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// Length of the UTF-8 sequence that starts at text[i], or 0 if none starts there.
std::size_t utf8_length(const std::string& text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = 0;
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF)
    length = 2;
  else if (lead >= 0xE0 && lead <= 0xEF)
    length = 3;
  else if (lead >= 0xF0 && lead <= 0xF4)
    length = 4;
  else
    return 0;
  if (i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  return length;
}

bool is_control(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x20 || u == 0x7F;
}

// A byte as \xNN.
std::string hex_escape(char c) {
  static const char* hex = "0123456789abcdef";
  const auto u = static_cast<unsigned char>(c);
  return std::string("\\x") + hex[u >> 4] + hex[u & 0xF];
}

// A symbol as the messages show it: quoted, control bytes as \xNN.
std::string printable(const std::string& symbol) {
  std::string out = "'";
  for (char c : symbol) out += is_control(c) ? hex_escape(c) : std::string(1, c);
  return out + "'";
}

// Why `symbol` cannot be an ordinary symbol of a vocabulary, or "" if it can.
std::string symbol_problem(Tokenization tokenization, const std::string& symbol) {
  if (symbol.empty()) return "a symbol cannot be empty";
  if (tokenization == Tokenization::kCharacters) {
    if (utf8_characters(symbol).size() != 1)
      return printable(symbol) + " is not a single character";
  } else {
    for (char c : symbol)
      if (is_space(c)) return "the word " + printable(symbol) + " contains whitespace";
  }
  return "";
}

// File escapes, so that every symbol fits on one visible line:
// backslash -> \\, space -> \s, control bytes -> \xNN.
std::string escape(const std::string& symbol) {
  std::string out;
  for (char c : symbol) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == ' ') {
      out += "\\s";
    } else if (is_control(c)) {
      out += hex_escape(c);
    } else {
      out += c;
    }
  }
  return out;
}

// The inverse of escape(); returns false (with `error`) for an escape it does not know.
bool unescape(const std::string& line, std::string& symbol, std::string& error) {
  symbol.clear();
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] != '\\') {
      symbol += line[i];
      continue;
    }
    const char next = i + 1 < line.size() ? line[i + 1] : '\0';
    if (next == '\\' || next == 's') {
      symbol += next == 's' ? ' ' : '\\';
      ++i;
    } else if (next == 'x' && i + 3 < line.size() &&
               std::isxdigit(static_cast<unsigned char>(line[i + 2])) &&
               std::isxdigit(static_cast<unsigned char>(line[i + 3]))) {
      symbol += static_cast<char>(std::stoi(line.substr(i + 2, 2), nullptr, 16));
      i += 3;
    } else {
      error = "unknown escape " + printable(line.substr(i, 2)) +
              " (known: \\\\ for a backslash, \\s for a space, \\xNN for a byte)";
      return false;
    }
  }
  return true;
}

}  // namespace

const std::vector<std::string>& reserved_symbols() {
  static const std::vector<std::string> reserved = {"<pad>", "<bos>", "<eos>", "<unk>"};
  return reserved;
}

std::size_t first_invalid_utf8_byte(const std::string& text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = utf8_length(text, i);
    if (length == 0) return i;
    i += length;
  }
  return std::string::npos;
}

std::vector<std::string> utf8_characters(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = std::max<std::size_t>(utf8_length(text, i), 1);
    out.push_back(text.substr(i, length));
    i += length;
  }
  return out;
}

Vocabulary::Vocabulary(Tokenization tokenization, const std::vector<std::string>& symbols)
    : tokenization_(tokenization), symbols_(reserved_symbols()) {
  static_assert(kPadId == 0 && kBosId == 1 && kEosId == 2 && kUnkId == 3 && kFirstSymbolId == 4,
                "reserved_symbols() lists the reserved symbols in id order");
  for (std::size_t i = 0; i < symbols_.size(); ++i)
    ids_.emplace(symbols_[i], static_cast<std::int32_t>(i));
  for (const std::string& symbol : symbols) {
    if (const std::string problem = symbol_problem(tokenization, symbol); !problem.empty())
      throw VocabularyError("Vocabulary: " + problem);
    const auto id = static_cast<std::int32_t>(symbols_.size());
    if (!ids_.emplace(symbol, id).second)
      throw VocabularyError("Vocabulary: symbol " + printable(symbol) + " is given twice (id " +
                            std::to_string(ids_.at(symbol)) + " already)");
    symbols_.push_back(symbol);
  }
}

std::int32_t Vocabulary::id(const std::string& symbol) const {
  const auto it = ids_.find(symbol);
  if (it == ids_.end())
    throw VocabularyError("Vocabulary: " + std::string(symbol_kind(tokenization_)) + " " +
                          printable(symbol) + " is not in the vocabulary");
  return it->second;
}

const std::string& Vocabulary::symbol(std::int32_t id) const {
  if (id < 0 || static_cast<std::size_t>(id) >= symbols_.size())
    throw VocabularyError("Vocabulary: id " + std::to_string(id) +
                          " is outside the vocabulary (ids 0 .. " +
                          std::to_string(symbols_.size() - 1) + ")");
  return symbols_[static_cast<std::size_t>(id)];
}

std::vector<std::string> Vocabulary::split(const std::string& text) const {
  if (tokenization_ == Tokenization::kCharacters) return utf8_characters(text);
  std::vector<std::string> words;
  std::string word;
  for (char c : text) {
    if (!is_space(c)) {
      word += c;
    } else if (!word.empty()) {
      words.push_back(word);
      word.clear();
    }
  }
  if (!word.empty()) words.push_back(word);
  return words;
}

// [encode]
std::vector<std::int32_t> Vocabulary::encode(const std::string& text, OnUnknown on_unknown) const {
  const std::vector<std::string> pieces = split(text);
  std::vector<std::int32_t> ids;
  ids.reserve(pieces.size());
  for (std::size_t position = 0; position < pieces.size(); ++position) {
    const auto it = ids_.find(pieces[position]);
    if (it != ids_.end()) {
      ids.push_back(it->second);
      continue;
    }
    if (on_unknown == OnUnknown::kUseUnk) {
      ids.push_back(kUnkId);
      continue;
    }
    // Strict mode is for text a user typed: say exactly what is wrong and where.
    std::string message = "unknown " + std::string(symbol_kind(tokenization_)) + " " +
                          printable(pieces[position]) + " at index " + std::to_string(position);
    if (text.size() <= 80) message += " of \"" + text + "\"";
    if (symbols_.size() <= 64) {
      message += "; the vocabulary knows";
      for (std::size_t i = kFirstSymbolId; i < symbols_.size(); ++i)
        message += " " + printable(symbols_[i]);
    }
    throw VocabularyError(message);
  }
  return ids;
}
// [encode]

std::string Vocabulary::decode(const std::vector<std::int32_t>& ids) const {
  std::string text;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (tokenization_ == Tokenization::kWords && i > 0) text += ' ';
    text += symbol(ids[i]);
  }
  return text;
}

void Vocabulary::save(const std::string& path) const {
  std::ofstream out(path, std::ios::binary);
  if (!out)
    throw VocabularyError("cannot write vocabulary file '" + path + "': " + std::strerror(errno));
  out << kHeaderPrefix << tokenization_name(tokenization_) << '\n';
  for (const std::string& symbol : symbols_) out << escape(symbol) << '\n';
  out.flush();
  if (!out) throw VocabularyError("error while writing vocabulary file '" + path + "'");
}

Vocabulary Vocabulary::load(const std::string& path) {
  std::string text;
  try {  // not a pipe (which would hang the read), a device, a directory, or a file cut short
    text = read_whole_file(path, "vocabulary file", kMaxVocabularyFileBytes);
  } catch (const std::runtime_error& e) {
    throw VocabularyError(e.what());
  }
  return parse(text, path);
}

Vocabulary Vocabulary::parse(const std::string& text, const std::string& path) {
  const auto fail = [&](std::size_t line, const std::string& message) {
    return VocabularyError("vocabulary file '" + path + "', line " + std::to_string(line) + ": " +
                           message);
  };

  std::istringstream in(text);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // written on Windows
    lines.push_back(line);
  }
  const std::string expected_header =
      std::string(kHeaderPrefix) + "characters' or '" + kHeaderPrefix + "words";
  if (lines.empty())
    throw VocabularyError("vocabulary file '" + path + "' is empty; expected the header '" +
                          expected_header + "'");

  Tokenization tokenization;
  if (lines[0] == kHeaderPrefix + std::string("characters")) {
    tokenization = Tokenization::kCharacters;
  } else if (lines[0] == kHeaderPrefix + std::string("words")) {
    tokenization = Tokenization::kWords;
  } else {
    throw fail(1, "expected the header '" + expected_header + "', got " + printable(lines[0]));
  }

  const std::vector<std::string>& reserved = reserved_symbols();
  if (lines.size() < 1 + reserved.size())
    throw VocabularyError("vocabulary file '" + path + "' ends after " +
                          std::to_string(lines.size()) + " lines; the " +
                          std::to_string(reserved.size()) +
                          " reserved symbols <pad> <bos> <eos> <unk> must follow the header");

  std::vector<std::string> symbols;
  std::unordered_map<std::string, std::size_t> seen;  // symbol -> line
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::size_t line_number = i + 1;
    std::string symbol, error;
    if (!unescape(lines[i], symbol, error)) throw fail(line_number, error);
    const std::size_t id = i - 1;
    if (id < reserved.size()) {
      if (symbol != reserved[id])
        throw fail(line_number, "expected the reserved symbol '" + reserved[id] + "' (id " +
                                    std::to_string(id) + "), got " + printable(symbol));
    } else {
      if (symbol.empty()) throw fail(line_number, "empty line (write a space as \\s)");
      if (const std::string problem = symbol_problem(tokenization, symbol); !problem.empty())
        throw fail(line_number, problem);
      symbols.push_back(symbol);
    }
    if (const auto [it, fresh] = seen.emplace(symbol, line_number); !fresh)
      throw fail(line_number, "symbol " + printable(symbol) + " already appears on line " +
                                  std::to_string(it->second));
  }
  return Vocabulary(tokenization, symbols);
}

}  // namespace tfm
