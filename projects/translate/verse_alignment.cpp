#include "translate/verse_alignment.hpp"

#include <cmath>
#include <cstdlib>
#include <sstream>

namespace translate {
namespace {

constexpr int kLargestShift = 5;        // rule 2 looks this many verses off either way
constexpr double kShiftedBetter = 0.8;  // ... and calls a chapter shifted 20 % better there
constexpr double kPoorAgreement =
    0.22;  // ... if its own agreement is this poor (twice the median's)
constexpr std::size_t kFewestVerses = 4;  // ... when it has at least this many pairs to compare
constexpr double kLargestRatio = 2.0;     // rule 3

// Characters (UTF-8 code points), so that an accent counts once.
std::size_t characters(const std::string& text) {
  std::size_t n = 0;
  for (const char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

bool shifted(const std::vector<ParallelVerse>& chapter) {
  const LengthAgreement own = length_agreement(chapter, 0);
  if (own.verses < kFewestVerses || own.mean_abs_log_ratio < kPoorAgreement) return false;
  for (int shift = -kLargestShift; shift <= kLargestShift; ++shift) {
    if (shift == 0) continue;
    const LengthAgreement off = length_agreement(chapter, shift);
    if (off.verses >= kFewestVerses &&
        off.mean_abs_log_ratio < kShiftedBetter * own.mean_abs_log_ratio)
      return true;
  }
  return false;
}

}  // namespace

LengthAgreement length_agreement(const std::vector<ParallelVerse>& chapter, int shift) {
  LengthAgreement agreement;
  double sum = 0.0;
  for (std::size_t v = 0; v < chapter.size(); ++v) {
    const long other = static_cast<long>(v) + shift;
    if (other < 0 || other >= static_cast<long>(chapter.size())) continue;
    const std::size_t a = characters(chapter[v].spanish),
                      b = characters(chapter[static_cast<std::size_t>(other)].english);
    if (a == 0 || b == 0) continue;
    sum += std::abs(std::log(static_cast<double>(a) / static_cast<double>(b)));
    ++agreement.verses;
  }
  agreement.mean_abs_log_ratio =
      agreement.verses ? sum / static_cast<double>(agreement.verses) : 0.0;
  return agreement;
}

AlignedVerses align_verses(const std::vector<ParallelVerse>& verses) {
  AlignedVerses aligned;
  AlignmentReport& report = aligned.report;
  report.verses = verses.size();
  for (std::size_t begin = 0; begin < verses.size();) {
    std::size_t end = begin;
    while (end < verses.size() && verses[end].ref.book == verses[begin].ref.book &&
           verses[end].ref.chapter == verses[begin].ref.chapter)
      ++end;
    const std::vector<ParallelVerse> chapter(verses.begin() + static_cast<long>(begin),
                                             verses.begin() + static_cast<long>(end));
    const bool chapter_shifted = shifted(chapter);
    if (chapter_shifted)
      report.shifted_chapters.push_back(chapter[0].ref.book + "." +
                                        std::to_string(chapter[0].ref.chapter));
    for (const ParallelVerse& verse : chapter) {
      if (verse.spanish.empty()) {
        ++report.missing_spanish;
      } else if (verse.english.empty()) {
        ++report.missing_english;
      } else if (chapter_shifted) {
        ++report.in_shifted_chapters;
      } else {
        const double ratio = static_cast<double>(characters(verse.spanish)) /
                             static_cast<double>(characters(verse.english));
        if (ratio > kLargestRatio || ratio < 1.0 / kLargestRatio) {
          ++report.length_mismatches;
        } else {
          aligned.pairs.push_back(verse);
        }
      }
    }
    begin = end;
  }
  report.kept = aligned.pairs.size();
  return aligned;
}

std::string AlignmentReport::summary() const {
  std::ostringstream out;
  out << verses << " verses in the Spanish versification; dropped: " << missing_spanish
      << " without Spanish text, " << missing_english << " without English text, "
      << in_shifted_chapters << " in " << shifted_chapters.size()
      << " chapters numbered differently (";
  for (std::size_t i = 0; i < shifted_chapters.size(); ++i)
    out << (i ? " " : "") << shifted_chapters[i];
  out << "), " << length_mismatches << " whose two texts differ in length more than "
      << kLargestRatio << "x; " << kept << " verse pairs kept.";
  return out.str();
}

}  // namespace translate
