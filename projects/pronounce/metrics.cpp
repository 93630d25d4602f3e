#include "pronounce/metrics.hpp"

#include <algorithm>
#include <stdexcept>

namespace pronounce {

// [edit distance]
std::size_t edit_distance(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  // One row of the dynamic-programming table at a time: row[j] = distance(a[:i], b[:j]).
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];  // distance(a[:i-1], b[:j-1])
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];  // distance(a[:i-1], b[:j])
      row[j] = std::min({above + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}
// [edit distance]

void PronunciationScore::add(const std::vector<std::string>& predicted,
                             const std::vector<std::vector<std::string>>& references) {
  if (references.empty())
    throw std::invalid_argument("PronunciationScore::add: a word needs at least one reference");
  std::size_t best = 0, best_length = 0;
  bool first = true, exact = false;
  for (const auto& reference : references) {
    const std::size_t d = edit_distance(predicted, reference);
    exact = exact || d == 0;
    // The closest reference; among equally close ones the longer (the smaller rate).
    if (first || d < best || (d == best && reference.size() > best_length)) {
      best = d;
      best_length = reference.size();
      first = false;
    }
  }
  ++words;
  word_errors += exact ? 0 : 1;
  phoneme_errors += best;
  reference_phonemes += best_length;
}

double PronunciationScore::word_error_rate() const {
  return words == 0 ? 0.0 : static_cast<double>(word_errors) / static_cast<double>(words);
}

double PronunciationScore::phoneme_error_rate() const {
  return reference_phonemes == 0
             ? 0.0
             : static_cast<double>(phoneme_errors) / static_cast<double>(reference_phonemes);
}

}  // namespace pronounce
