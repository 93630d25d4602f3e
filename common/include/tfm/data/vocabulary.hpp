/// \file vocabulary.hpp
/// \brief Chapter 02: symbols <-> token ids, with four reserved ids, for characters or words.
///
/// Every vocabulary of the project starts with the same four reserved symbols, so that the
/// model, the masks and the decoder never need to ask which id means what:
///
/// | id | symbol  | meaning                                          |
/// |----|---------|--------------------------------------------------|
/// | 0  | `<pad>` | padding (tfm::kPadId, masked out by chapter 04)  |
/// | 1  | `<bos>` | beginning of sequence: the decoder's first input |
/// | 2  | `<eos>` | end of sequence: the decoder's last target       |
/// | 3  | `<unk>` | a symbol the vocabulary does not know            |
///
/// The ordinary symbols follow from id 4 on, in the order they were given.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "tfm/layers/mask.hpp"

namespace tfm {

/// Id of `<bos>`, the token the decoder starts from.
inline constexpr std::int32_t kBosId = 1;
/// Id of `<eos>`, the token that ends a target sequence.
inline constexpr std::int32_t kEosId = 2;
/// Id of `<unk>`, what an unknown symbol becomes when that is allowed.
inline constexpr std::int32_t kUnkId = 3;
/// How many ids are reserved (0 .. 3); ordinary symbols start here.
inline constexpr std::int32_t kFirstSymbolId = 4;

/// Thrown for an unknown symbol in strict mode, an id out of range or a malformed vocabulary
/// file; the message names the symbol (and its position) or the file (and its line).
class VocabularyError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// What a symbol is: one character (UTF-8 code point) or one whitespace-separated word.
enum class Tokenization { kCharacters, kWords };

/// What encode() does with a symbol the vocabulary does not know.
enum class OnUnknown {
  kUseUnk,  ///< map it to `<unk>` (id 3)
  kThrow,   ///< throw VocabularyError naming the symbol and its position (for user input)
};

/// A fixed list of symbols; the id of a symbol is its index in symbols().
class Vocabulary {
 public:
  /// The four reserved symbols followed by `symbols` (ids 4, 5, ...). Throws VocabularyError for
  /// a duplicate, an empty symbol, a reserved name, a word containing whitespace, or (for
  /// characters) a symbol that is not exactly one character.
  Vocabulary(Tokenization tokenization, const std::vector<std::string>& symbols);

  /// Whether split() cuts text into characters or into words.
  Tokenization tokenization() const { return tokenization_; }
  /// Number of ids, reserved ones included.
  std::size_t size() const { return symbols_.size(); }
  /// Every symbol in id order, starting with `<pad>`, `<bos>`, `<eos>`, `<unk>`.
  const std::vector<std::string>& symbols() const { return symbols_; }

  /// Does `symbol` have an id? (The reserved names such as `<pad>` do.)
  bool contains(const std::string& symbol) const { return ids_.count(symbol) != 0; }
  /// The id of a symbol; throws VocabularyError if it is not in the vocabulary.
  std::int32_t id(const std::string& symbol) const;
  /// The symbol of an id; throws VocabularyError if the id is out of range.
  const std::string& symbol(std::int32_t id) const;

  /// Cuts text into symbols: UTF-8 characters, or words separated by runs of whitespace.
  std::vector<std::string> split(const std::string& text) const;
  /// text -> ids, one per symbol (no `<bos>`/`<eos>` added).
  std::vector<std::int32_t> encode(const std::string& text, OnUnknown on_unknown) const;
  /// ids -> text: characters are concatenated, words joined by one space; reserved ids are
  /// written by name (`<bos>`). Throws VocabularyError for an id out of range.
  std::string decode(const std::vector<std::int32_t>& ids) const;

  /// Writes the vocabulary as text: a header line, then one symbol per line in id order.
  void save(const std::string& path) const;
  /// Reads a file written by save(); throws VocabularyError naming the file and the line for
  /// a missing header, missing or misplaced reserved symbols, bad escapes or duplicates.
  static Vocabulary load(const std::string& path);
  /// The reader of load() on the file's text; `name` names the file in the messages. For
  /// load() and the fuzz target.
  static Vocabulary parse(const std::string& text, const std::string& name);

  /// Equal vocabularies give every symbol the same id: same tokenization, same symbols in the
  /// same order (e.g. a loaded checkpoint's vocabulary against the data's).
  ///@{
  bool operator==(const Vocabulary& other) const {
    return tokenization_ == other.tokenization_ && symbols_ == other.symbols_;
  }
  bool operator!=(const Vocabulary& other) const { return !(*this == other); }
  ///@}

 private:
  Tokenization tokenization_;
  std::vector<std::string> symbols_;                   // id -> symbol
  std::unordered_map<std::string, std::int32_t> ids_;  // symbol -> id
};

/// The reserved symbols by id: `<pad>`, `<bos>`, `<eos>`, `<unk>`.
const std::vector<std::string>& reserved_symbols();

/// Cuts UTF-8 text into characters (code points); a byte that does not start a valid UTF-8
/// sequence becomes a one-byte "character" of its own, so nothing is ever lost.
std::vector<std::string> utf8_characters(const std::string& text);

/// The offset of the first byte of `text` that does not start a valid UTF-8 sequence, or
/// std::string::npos when all of it is UTF-8 (e.g. a Latin-1 'é', byte 0xE9, is not).
std::size_t first_invalid_utf8_byte(const std::string& text);

}  // namespace tfm
