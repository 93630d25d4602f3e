#include "tfm/tasks/vowel_metrics.hpp"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include "tfm/tasks/vowel_restoration.hpp"

namespace tfm {
namespace {

bool is_vowel(char c) {
  return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u';
}

// The `k` characters of the masked text on each side of position i, as "left|right"; '^' and '$'
// stand for what lies before the start and after the end.
std::string context(const std::string& masked, std::size_t i, std::size_t k) {
  std::string key(2 * k + 1, '|');
  for (std::size_t j = 1; j <= k; ++j) {
    key[k - j] = i >= j ? masked[i - j] : '^';
    key[k + j] = i + j < masked.size() ? masked[i + j] : '$';
  }
  return key;
}

template <class Counts>
char argmax_vowel(const Counts& counts) {
  const char vowels[] = {'a', 'e', 'i', 'o', 'u'};
  char best = 'e';
  std::size_t best_count = 0;
  for (int v = 0; v < 5; ++v)
    if (counts[v] > best_count) best = vowels[v], best_count = counts[v];
  return best;
}

int vowel_index(char c) {
  switch (c) {
    case 'a':
      return 0;
    case 'e':
      return 1;
    case 'i':
      return 2;
    case 'o':
      return 3;
    default:
      return 4;
  }
}

double ratio(std::size_t part, std::size_t whole) {
  return whole ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

}  // namespace

void RestorationScore::add(const std::string& masked, const std::string& restored,
                           const std::string& truth) {
  if (masked.size() != truth.size())
    throw std::invalid_argument("RestorationScore: lengths differ (masked " +
                                std::to_string(masked.size()) + ", truth " +
                                std::to_string(truth.size()) + ")");
  // Free decoding may stop early (<eos>) or run on: a missing position is wrong, extra ones
  // are ignored.
  for (std::size_t i = 0; i < truth.size(); ++i) {
    const bool right = i < restored.size() && restored[i] == truth[i];
    ++characters;
    correct_characters += right;
    if (masked[i] == kVowelMask) {
      ++vowels;
      correct_vowels += right;
    }
  }
}

double RestorationScore::character_accuracy() const {
  return ratio(correct_characters, characters);
}

double RestorationScore::vowel_accuracy() const {
  return ratio(correct_vowels, vowels);
}

VowelBaseline VowelBaseline::most_frequent(const std::string& train_text) {
  std::array<std::size_t, 5> counts{};
  for (char c : train_text)
    if (is_vowel(c)) ++counts[vowel_index(c)];
  VowelBaseline b;
  b.fallback_ = argmax_vowel(counts);
  b.name_ = std::string("most frequent vowel ('") + b.fallback_ + "')";
  return b;
}

VowelBaseline VowelBaseline::with_context(const std::string& train_text, std::size_t letters) {
  if (letters == 0 || letters > 8)
    throw std::invalid_argument("VowelBaseline: letters on each side must be 1 to 8, got " +
                                std::to_string(letters));
  VowelBaseline b = most_frequent(train_text);
  b.name_ = "most frequent vowel given " + std::to_string(letters) +
            (letters == 1 ? " letter" : " letters") + " on each side";
  const std::string masked = mask_vowels(train_text);
  for (std::size_t k = 1; k <= letters; ++k) {
    std::unordered_map<std::string, std::array<std::size_t, 5>> counts;
    for (std::size_t i = 0; i < train_text.size(); ++i)
      if (is_vowel(train_text[i])) ++counts[context(masked, i, k)][vowel_index(train_text[i])];
    std::unordered_map<std::string, char> rule;
    for (const auto& [key, c] : counts) rule.emplace(key, argmax_vowel(c));
    b.by_context_.push_back(std::move(rule));
  }
  return b;
}

std::string VowelBaseline::restore(const std::string& masked) const {
  std::string out = masked;
  for (std::size_t i = 0; i < masked.size(); ++i) {
    if (masked[i] != kVowelMask) continue;
    out[i] = fallback_;
    // The widest context seen in training decides; narrower ones are the back-off.
    for (std::size_t k = by_context_.size(); k >= 1; --k) {
      const auto it = by_context_[k - 1].find(context(masked, i, k));
      if (it != by_context_[k - 1].end()) {
        out[i] = it->second;
        break;
      }
    }
  }
  return out;
}

}  // namespace tfm
