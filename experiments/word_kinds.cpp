#include "word_kinds.hpp"

#include <algorithm>
#include <stdexcept>

#include "tfm/support/format.hpp"
#include "tfm/tasks/vowel_metrics.hpp"
#include "tfm/tasks/vowel_restoration.hpp"

namespace experiments {

namespace {

std::size_t index_of(WordKind kind) {
  return static_cast<std::size_t>(kind);
}

double ratio(std::size_t part, std::size_t whole) {
  return whole ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

}  // namespace

const char* word_kind_name(WordKind kind) {
  switch (kind) {
    case WordKind::kSeen:
      return "in a word of the training text, whole";
    case WordKind::kUnseen:
      return "in a word never seen in training, whole";
    default:
      return "in a word cut by the window's edge";
  }
}

WordList::WordList(const std::string& text) {
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find(' ', begin);
    if (end == std::string::npos) end = text.size();
    if (end > begin) words_.insert(text.substr(begin, end - begin));
    begin = end + 1;
  }
}

// [word kinds]
std::vector<WordKind> word_kinds(const std::string& window, bool cut_before, bool cut_after,
                                 const WordList& training_words) {
  std::vector<WordKind> kinds(window.size(), WordKind::kSeen);
  std::size_t begin = 0;
  while (begin < window.size()) {
    std::size_t end = window.find(' ', begin);
    if (end == std::string::npos) end = window.size();
    const bool cut = (begin == 0 && cut_before) || (end == window.size() && cut_after);
    const WordKind kind = cut ? WordKind::kCut
                          : training_words.contains(window.substr(begin, end - begin))
                              ? WordKind::kSeen
                              : WordKind::kUnseen;
    std::fill(kinds.begin() + static_cast<std::ptrdiff_t>(begin),
              kinds.begin() + static_cast<std::ptrdiff_t>(end), kind);
    begin = end + 1;
  }
  return kinds;
}
// [word kinds]

void WordKindScore::add(const std::string& masked, const std::string& restored,
                        const std::string& truth, const std::vector<WordKind>& kinds) {
  if (masked.size() != truth.size() || kinds.size() != truth.size())
    throw std::invalid_argument(
        "WordKindScore: lengths differ (masked " + std::to_string(masked.size()) + ", truth " +
        std::to_string(truth.size()) + ", word kinds " + std::to_string(kinds.size()) + ")");
  for (std::size_t i = 0; i < truth.size(); ++i) {
    if (masked[i] != tfm::kVowelMask) continue;
    ++vowels[index_of(kinds[i])];
    correct[index_of(kinds[i])] += i < restored.size() && restored[i] == truth[i];
  }
}

std::size_t WordKindScore::total() const {
  std::size_t n = 0;
  for (std::size_t v : vowels) n += v;
  return n;
}

double WordKindScore::share_of(WordKind kind) const {
  return ratio(vowels[index_of(kind)], total());
}

double WordKindScore::accuracy_of(WordKind kind) const {
  return ratio(correct[index_of(kind)], vowels[index_of(kind)]);
}

double WordKindScore::accuracy_with_seen_words_right() const {
  std::size_t right = vowels[index_of(WordKind::kSeen)];
  for (WordKind kind : {WordKind::kUnseen, WordKind::kCut}) right += correct[index_of(kind)];
  return ratio(right, total());
}

WordKindAnalysis analyse_word_kinds(tfm::Transformer& model, const tfm::VowelTask& task,
                                    std::size_t windows, std::size_t beam) {
  const tfm::VowelRestoration& data = task.data();
  const std::string& text = data.text();
  const std::string train_text = text.substr(0, data.boundary());
  const tfm::VowelBaseline rule = tfm::VowelBaseline::with_context(train_text, 3);
  const WordList training_words(train_text);
  const std::vector<std::size_t> chosen = tfm::held_out_windows(data, windows);
  WordKindAnalysis result;
  result.windows = chosen.size();
  for (std::size_t i = 0; i < chosen.size(); i += 64) {
    const std::vector<std::size_t> chunk(
        chosen.begin() + static_cast<std::ptrdiff_t>(i),
        chosen.begin() + static_cast<std::ptrdiff_t>(std::min(chosen.size(), i + 64)));
    const tfm::TokenIds restored =
        task.generate(model, data.batch(tfm::Split::kHeldOut, chunk).src, beam);
    for (std::size_t b = 0; b < chunk.size(); ++b) {
      const std::string truth = data.window(tfm::Split::kHeldOut, chunk[b]);
      const std::string masked = tfm::mask_vowels(truth);
      // A letter just outside the window means its first (or last) word is only partly shown.
      const std::size_t start = data.window_start(tfm::Split::kHeldOut, chunk[b]),
                        end = start + truth.size();
      const std::vector<WordKind> kinds =
          word_kinds(truth, start > 0 && text[start - 1] != ' ',
                     end < text.size() && text[end] != ' ', training_words);
      result.model.add(masked, tfm::generated_text(task.target_vocabulary(), restored, b), truth,
                       kinds);
      result.rule.add(masked, rule.restore(masked), truth, kinds);
    }
  }
  return result;
}

std::string word_kinds_text(const WordKindAnalysis& r) {
  using tfm::format;
  std::string text = format(
      "The hidden vowels by the word they are in, and the share of each restored:\n"
      "  %-42s %6s %11s %15s\n",
      "", "share", "this model", "3-letter rule");
  for (WordKind kind : {WordKind::kSeen, WordKind::kUnseen, WordKind::kCut})
    text += format("  %-42s %6.3f %11.4f %15.4f\n", word_kind_name(kind), r.model.share_of(kind),
                   r.model.accuracy_of(kind), r.rule.accuracy_of(kind));
  return text +
         format(
             "Were every vowel of the seen words right, and the rest as it is, the model would\n"
             "restore %.4f of the hidden vowels (the 3-letter rule %.4f).\n",
             r.model.accuracy_with_seen_words_right(), r.rule.accuracy_with_seen_words_right());
}

}  // namespace experiments
