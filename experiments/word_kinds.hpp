/// \file word_kinds.hpp
/// \brief The lab: the hidden vowels of the held-out windows sorted by the kind of word they lie
/// in, and how far learning the training text's words by heart could take a model.
///
/// A word of the training text, whole in the window, is one a model could have learned by heart.
/// A word never seen in training has to be guessed from its letters and its neighbours: a rare
/// word, a name, or two words run together (reference 002's preprocessing joins the lines of a
/// file without a space). Of a word cut by the window's edge only a part is shown: `*ng` at the
/// start of a window may end *thing*, *long* or *young*.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <unordered_set>
#include <vector>

#include "tfm/model/transformer.hpp"
#include "tfm/tasks/vowel_task.hpp"

namespace experiments {

/// The kind of word a hidden vowel lies in. It bounds what anything fitted on the training text
/// can know about that vowel.
enum class WordKind {
  kSeen,    ///< a word of the training text, whole in the window
  kUnseen,  ///< whole in the window, but never a word of the training text
  kCut,     ///< running past the window's first or last character: only a part is shown
};
/// How many kinds there are (for arrays indexed by WordKind).
constexpr std::size_t kWordKinds = 3;
/// "in a word of the training text, whole", ... for tables.
const char* word_kind_name(WordKind kind);

/// The words of a text (its runs of letters between spaces), to tell seen words from unseen ones.
class WordList {
 public:
  /// Every word of `text` (normalised text: lower-case letters and single spaces).
  explicit WordList(const std::string& text);
  /// Is `word` one of them?
  bool contains(const std::string& word) const { return words_.count(word) != 0; }

 private:
  std::unordered_set<std::string> words_;
};

/// For every character of `window`, the kind of word it lies in (spaces: kSeen; they are never
/// hidden). `cut_before` says that the text has a letter just before the window, so that a word
/// that starts the window began earlier; `cut_after` the same after its end.
std::vector<WordKind> word_kinds(const std::string& window, bool cut_before, bool cut_after,
                                 const WordList& training_words);

/// Hidden vowels restored, counted by the kind of word they lie in.
struct WordKindScore {
  std::array<std::size_t, kWordKinds> vowels{};   ///< hidden vowels, by WordKind
  std::array<std::size_t, kWordKinds> correct{};  ///< those restored right, by WordKind

  /// Adds one window: the masked input, what was restored (shorter: the missing positions are
  /// wrong), the truth and its word_kinds. Throws std::invalid_argument naming the lengths if
  /// `masked`, `truth` and `kinds` are not all as long.
  void add(const std::string& masked, const std::string& restored, const std::string& truth,
           const std::vector<WordKind>& kinds);
  /// Every hidden vowel counted.
  std::size_t total() const;
  /// The share of the hidden vowels that lie in words of `kind` (0 if none was counted).
  double share_of(WordKind kind) const;
  /// Restored right / hidden, in words of `kind` (0 if there is none).
  double accuracy_of(WordKind kind) const;
  /// The share of all hidden vowels that would be right were every vowel of the seen words right
  /// and the others as they are: how far remembering the training text's words can take a rule.
  double accuracy_with_seen_words_right() const;
};

/// The model (the letters of the input kept) and the widest counting rule (3 letters on each
/// side, fitted on the training text) on the same held-out windows, by word kind.
struct WordKindAnalysis {
  std::size_t windows = 0;  ///< held-out windows tested
  WordKindScore model;      ///< the model
  WordKindScore rule;       ///< the 3-letter rule
};

/// Restores up to `windows` held-out windows of `task` (tfm::held_out_windows, the windows
/// chapter 11 tests on) with the model (greedy for `beam` = 1, else beam search) and with the
/// 3-letter rule, and counts their vowels by word kind.
WordKindAnalysis analyse_word_kinds(tfm::Transformer& model, const tfm::VowelTask& task,
                                    std::size_t windows, std::size_t beam);

/// The analysis as experiments/vowel_trials.py reads it: one line per kind (its share, the
/// model's and the rule's accuracy), then the accuracy each would reach were every seen word right.
std::string word_kinds_text(const WordKindAnalysis& analysis);

}  // namespace experiments
