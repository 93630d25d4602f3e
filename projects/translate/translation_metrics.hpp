/// \file translation_metrics.hpp
/// \brief The translation project: how the field scores a translation — corpus BLEU-4 and chrF,
/// as sacreBLEU (Post 2018) defines them, so that the numbers mean what they mean in papers.
///
/// **BLEU** (Papineni et al. 2002) counts, for n = 1..4, how many of the output's n-grams the
/// reference has (each reference n-gram matches at most as often as it occurs there), summed
/// over the whole test set; the score is the geometric mean of the four precisions times a
/// brevity penalty that punishes an output shorter than the reference in total:
/// \f[ \mathrm{BLEU} = \mathrm{BP} \cdot \exp\Big(\frac14 \sum_{n=1}^{4} \log p_n\Big), \qquad
///     \mathrm{BP} = \min\big(1,\; e^{\,1 - r/c}\big) \f]
/// with c the output's and r the reference's length in tokens. Words are sacreBLEU's default
/// `13a` tokens (the WMT scorer mteval-v13a): punctuation split off, except a period or comma
/// between digits and a dash after a digit. A precision with no match at all is smoothed as
/// sacreBLEU's default `exp` does (1/2, 1/4, ... of one match), which never happens on a test set
/// of hundreds of verses. Scores are on sacreBLEU's 0-100 scale.
///
/// **chrF** (Popović 2015) is the F-score (recall weighted by β = 2) of character n-grams,
/// n = 1..6, spaces removed, precision and recall each averaged over the orders; it gives
/// partial credit for a word with the wrong ending, which matters for Spanish verbs.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace translate {

/// `line` cut into sacreBLEU's `13a` tokens.
std::vector<std::string> tokenize_13a(const std::string& line);

/// What BLEU sums over a test set: n-gram matches and totals for n = 1..4, and the lengths.
struct BleuStatistics {
  std::array<long, 4> matches{};  ///< clipped n-gram matches, n = 1..4
  std::array<long, 4> totals{};   ///< the output's n-grams, n = 1..4
  long output_length = 0;         ///< c: tokens of the output
  long reference_length = 0;      ///< r: tokens of the reference
  /// Adds another sentence's (or corpus's) statistics.
  BleuStatistics& operator+=(const BleuStatistics& other);
};

/// The statistics of one output against its reference, both already tokens.
BleuStatistics bleu_statistics(const std::vector<std::string>& output,
                               const std::vector<std::string>& reference);

/// How a precision without any match is scored.
enum class BleuSmoothing {
  kExp,   ///< sacreBLEU's default: the k-th such precision is 1 / (2^k · total)
  kNone,  ///< 0, and so BLEU is 0 (NLTK's corpus_bleu without a smoothing function)
};

/// A BLEU score and what it is made of.
struct BleuScore {
  double bleu = 0.0;                   ///< 0-100
  std::array<double, 4> precisions{};  ///< p_1 .. p_4, 0-100
  double brevity_penalty = 0.0;        ///< BP
  long output_length = 0;              ///< c
  long reference_length = 0;           ///< r
  /// sacreBLEU's line: `12.34 45.6/18.9/9.1/4.8 (BP = 0.973 ratio = 0.973 hyp_len = ... ref_len = ...)`.
  std::string to_string() const;
};

/// The score of summed statistics.
BleuScore bleu_score(const BleuStatistics& statistics,
                     BleuSmoothing smoothing = BleuSmoothing::kExp);

/// Corpus BLEU of `outputs` against `references` (one each, same order), on `13a` tokens of each
/// line with its trailing whitespace removed, as `sacrebleu -tok 13a` computes it. Throws
/// std::invalid_argument if the two lists differ in length or are empty.
BleuScore corpus_bleu(const std::vector<std::string>& outputs,
                      const std::vector<std::string>& references,
                      BleuSmoothing smoothing = BleuSmoothing::kExp);

/// Corpus chrF (β = 2, character 6-grams, whitespace removed), 0-100, as sacreBLEU 2's default
/// `chrF2` computes it. Throws as corpus_bleu does.
double corpus_chrf(const std::vector<std::string>& outputs,
                   const std::vector<std::string>& references);

}  // namespace translate
