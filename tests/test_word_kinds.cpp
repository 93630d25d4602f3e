// The lab's word-kind analysis of vowel restoration (experiments/word_kinds.hpp): which held-out
// vowels lie in a word of the training text, in a word never seen, or in a word cut by the
// window's edge, and how far remembering the seen words could take a model.
#include <array>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "word_kinds.hpp"

using namespace experiments;
using Catch::Contains;

TEST_CASE("word kinds: word_kinds tells seen, unseen and cut words apart", "[word_kinds]") {
  const WordList training_words("the cat sat on the mat");
  CHECK(training_words.contains("cat"));
  CHECK_FALSE(training_words.contains("ca"));  // words, not parts of them
  CHECK_FALSE(training_words.contains(""));

  using K = WordKind;
  // "e" ends a word that began before the window, "th" one that goes on after it.
  CHECK(word_kinds("e cat saw th", true, true, training_words) ==
        std::vector<K>{K::kCut, K::kSeen, K::kSeen, K::kSeen, K::kSeen, K::kSeen, K::kUnseen,
                       K::kUnseen, K::kUnseen, K::kSeen, K::kCut, K::kCut});
  // The same window at the start and the end of its text: nothing is cut.
  CHECK(word_kinds("e cat saw th", false, false, training_words) ==
        std::vector<K>{K::kUnseen, K::kSeen, K::kSeen, K::kSeen, K::kSeen, K::kSeen, K::kUnseen,
                       K::kUnseen, K::kUnseen, K::kSeen, K::kUnseen, K::kUnseen});
  // A window that starts or ends with a space cuts no word, whatever lies beyond it.
  CHECK(word_kinds(" cat ", true, true, training_words) ==
        std::vector<K>{K::kSeen, K::kSeen, K::kSeen, K::kSeen, K::kSeen});
}

TEST_CASE("word kinds: WordKindScore counts the vowels of each kind of word", "[word_kinds]") {
  using K = WordKind;
  WordKindScore score;
  CHECK(score.share_of(K::kSeen) == 0.0);  // nothing counted yet: 0, not a division by zero
  // "the" seen and right; "dog" unseen and wrong.
  score.add("th* d*g", "the dig", "the dog",
            {K::kSeen, K::kSeen, K::kSeen, K::kSeen, K::kUnseen, K::kUnseen, K::kUnseen});
  score.add("th*", "tha", "the", {K::kSeen, K::kSeen, K::kSeen});  // seen, wrong
  score.add("*", "", "a", {K::kCut});                              // cut, and missing: wrong
  CHECK(score.total() == 4);
  CHECK(score.vowels == std::array<std::size_t, kWordKinds>{2, 1, 1});
  CHECK(score.correct == std::array<std::size_t, kWordKinds>{1, 0, 0});
  CHECK(score.share_of(K::kSeen) == Approx(0.5));
  CHECK(score.accuracy_of(K::kSeen) == Approx(0.5));
  CHECK(score.accuracy_of(K::kUnseen) == 0.0);
  CHECK(score.accuracy_of(K::kCut) == 0.0);
  // Both seen vowels right, the rest as it is: 2 of 4.
  CHECK(score.accuracy_with_seen_words_right() == Approx(2.0 / 4.0));

  CHECK_THROWS_WITH(score.add("th*", "the", "the", {K::kSeen}),
                    Catch::Contains("word kinds 1") && Catch::Contains("truth 3"));
}

TEST_CASE("word kinds: the table gives each kind's share and accuracy, and the seen-word ceiling",
          "[word_kinds]") {
  WordKindAnalysis r;
  r.windows = 10;
  r.model.vowels = {60, 25, 15};  // seen, unseen, cut words
  r.model.correct = {57, 15, 8};
  r.rule.vowels = {60, 25, 15};
  r.rule.correct = {52, 15, 8};
  const std::string text = word_kinds_text(r);
  CHECK_THAT(
      text,
      Contains("in a word of the training text, whole       0.600      0.9500          0.8667\n"));
  CHECK_THAT(
      text,
      Contains("in a word never seen in training, whole     0.250      0.6000          0.6000\n"));
  CHECK_THAT(
      text,
      Contains("in a word cut by the window's edge          0.150      0.5333          0.5333\n"));
  // 80 right, 3 more if every seen vowel were: 0.83; the rule 75 + 8.
  CHECK_THAT(text, Contains("restore 0.8300 of the hidden vowels (the 3-letter rule 0.8300)"));
}
