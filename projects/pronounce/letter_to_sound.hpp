/// \file letter_to_sound.hpp
/// \brief The pronunciation project: Festival's letter-to-sound rules for CMUdict — one decision tree per
/// letter, read from Debian's `festlex-cmu` at run time — as a baseline for grapheme-to-phoneme
/// conversion.
///
/// Festival (`lts.scm`, `lts_predict`) writes a word as `#` + letters + `#` and asks, for each
/// letter, the letter's tree: every question is "is the letter at offset k (`p.p.p.name` = -3 ..
/// `n.n.n.name` = +3) this one?", where `#` is the word boundary and `0` a position beyond it.
/// A leaf names what the letter becomes: `_epsilon_` (nothing), one phone (`aa1`) or several
/// joined by `-` (`k-s` for the x of *box*). The phones are read as the model's phonemes by
/// pronounce::stressless_phoneme (stress dropped, `ax` as `ah`), so both are scored alike. Festival
/// then predicts syllables and stress, which these scores ignore.
///
/// Festival's rules were trained on CMUdict 0.4 — most likely on every word of it, this
/// project's test words included — so their score on the test words flatters them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace pronounce {

/// Where Debian's `festlex-cmu` puts the rules.
inline constexpr const char* kCmuLtsRulesPath = "/usr/share/festival/dicts/cmu/cmu_lts_rules.scm";

/// Festival's decision trees for letter-to-sound conversion.
class LetterToSound {
 public:
  /// Reads a Festival rule file: a `set!` of a quoted list of `(LETTER TREE)` rules. Throws std::invalid_argument
  /// naming `name` and the line for unbalanced parentheses, a question other than
  /// `(F.name is V)` with F an offset of at most 3, a leaf without a class, a phone that is not
  /// one of the 39 phonemes, or no rules at all.
  static LetterToSound parse(const std::string& text, const std::string& name);
  /// parse() on a file; throws std::runtime_error naming it if it cannot be read.
  static LetterToSound from_file(const std::string& path);

  /// The phonemes of a word (letters a-z; capitals are lowercased). Throws std::invalid_argument
  /// naming the word for a letter without a tree.
  std::vector<std::string> pronounce(const std::string& word) const;
  /// Number of letters with a tree.
  std::size_t letters() const { return roots_.size(); }
  /// Number of tree nodes, questions and leaves.
  std::size_t nodes() const { return nodes_.size(); }

 private:
  struct Node {
    int offset = 0;                   // question: which letter, relative to the current one
    std::string value;                // question: is it this one?
    std::int32_t yes = -1, no = -1;   // question: the subtrees
    std::vector<std::string> phones;  // leaf (yes == -1): what the letter becomes
  };
  std::vector<Node> nodes_;
  std::map<std::string, std::int32_t> roots_;  // letter -> root node
};

}  // namespace pronounce
