/// \file bpe.hpp
/// \brief The translation project: byte-pair encoding (Sennrich, Haddow and Birch 2016, the
/// subwords the paper's translation models read), learnt on the training verses of both
/// languages together.
///
/// **Words first.** Text is cut into words: runs of letters and digits, and every other
/// character alone ("mundo," is `mundo` and `,`). A word that follows a space starts with `▁`
/// (U+2581), the space it stands for, as in SentencePiece; the text's first word gets one too,
/// so a word is spelt the same wherever it stands. Joining the pieces and turning every `▁`
/// into a space gives the text back exactly (for text with single spaces and none at the ends,
/// which is what the Bible reader writes).
///
/// **Merges.** Learning starts from the characters of every word, counted by how often the
/// word occurs, and repeats: the most frequent pair of neighbouring symbols becomes one new
/// symbol (ties: the pair first in byte order), until the vocabulary has its size or no pair
/// occurs twice. Encoding a word replays the merges in the order they were learnt: the
/// earliest-learnt pair present is merged first. A character never seen in training has no
/// symbol: it becomes `<unk>`, and unknown_characters() names it.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace translate {

/// The mark of a word's leading space, U+2581 "▁".
inline constexpr const char* kSpaceMark = "\xE2\x96\x81";

/// Thrown for a tokenizer file that cannot be read; the message names the file and the line.
class TokenizerError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// `text` cut into words, each that follows a space (and the first) marked with kSpaceMark.
std::vector<std::string> bpe_words(const std::string& text);

/// A learnt byte-pair encoding: the characters it knows and its merges, in the order learnt.
/// encode() remembers the words it has split (not safe to call from two threads at once).
class Bpe {
 public:
  /// Learns merges on `texts` until the symbols (characters plus merges) number `symbols` or no
  /// pair occurs twice. Throws std::invalid_argument for no text at all.
  static Bpe learn(const std::vector<std::string>& texts, std::size_t symbols);
  /// The encoding of a saved tokenizer (to_text()). Throws TokenizerError naming `name` and the
  /// line for a missing header, a count that does not match, an empty or repeated symbol, a
  /// symbol with whitespace, or a merge whose halves are not symbols yet.
  static Bpe parse(const std::string& text, const std::string& name);

  /// The text's pieces: bpe_words(), each split into symbols; an unknown character is `<unk>`.
  std::vector<std::string> encode(const std::string& text) const;
  /// The text of pieces: joined, every kSpaceMark a space, the leading one dropped.
  static std::string decode(const std::vector<std::string>& pieces);
  /// The characters of `text` this encoding never saw, each once, in order of appearance.
  std::vector<std::string> unknown_characters(const std::string& text) const;

  /// Every symbol encode() can write: the characters (sorted), then the merges' results in the
  /// order learnt (a result that is already a symbol is not repeated).
  std::vector<std::string> symbols() const;
  /// The characters seen in training, sorted.
  const std::vector<std::string>& characters() const { return characters_; }
  /// The merges, in the order learnt.
  const std::vector<std::pair<std::string, std::string>>& merges() const { return merges_; }
  /// The tokenizer as text: `# BPE`, `characters N`, one per line, `merges M`, `left right` per line.
  std::string to_text() const;

 private:
  void rebuild_index();  // known_ and ranks_ from characters_ and merges_
  std::vector<std::string> encode_word(const std::string& word) const;

  std::vector<std::string> characters_;
  std::vector<std::pair<std::string, std::string>> merges_;
  std::unordered_set<std::string> known_;               // characters_
  std::unordered_map<std::string, std::size_t> ranks_;  // "left right" -> merge number
  mutable std::unordered_map<std::string, std::vector<std::string>> cache_;  // word -> pieces
};

}  // namespace translate
