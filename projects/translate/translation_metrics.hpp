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
#include <cstdint>
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

/// What chrF sums over a test set: character n-grams of the output, of the reference, and their
/// matches, for n = 1..6.
struct ChrfStatistics {
  std::array<double, 6> output_ngrams{};     ///< the output's (0 where the reference has none)
  std::array<double, 6> reference_ngrams{};  ///< the reference's
  std::array<double, 6> matches{};           ///< clipped matches
  /// Adds another sentence's statistics.
  ChrfStatistics& operator+=(const ChrfStatistics& other);
};
/// The chrF statistics of one output against its reference.
ChrfStatistics chrf_statistics(const std::string& output, const std::string& reference);
/// chrF (0-100) of summed statistics.
double chrf_score(const ChrfStatistics& statistics);

/// The two measures a ranking can be by.
enum class Measure { kBleu, kChrf };
/// "BLEU" or "chrF".
const char* measure_name(Measure measure);
/// corpus_bleu(...).bleu or corpus_chrf(...).
double corpus_score(const std::vector<std::string>& outputs,
                    const std::vector<std::string>& references, Measure measure);

/// Two systems compared on the same sentences by paired bootstrap resampling (Koehn 2004, as
/// sacreBLEU's `--paired-bs` does it): `resamples` times, draw as many sentences as there are,
/// with replacement, and score both systems on the same draw.
struct PairedBootstrap {
  double a = 0.0;             ///< system a's score on all the sentences
  double b = 0.0;             ///< system b's score on all the sentences
  double low = 0.0;           ///< 2.5th percentile of a − b over the resamples
  double high = 0.0;          ///< 97.5th percentile: [low, high] is the 95 % interval
  double not_ahead = 0.0;     ///< the share of resamples where a − b <= 0 (sacreBLEU's p-value)
  std::size_t resamples = 0;  ///< how many
  /// a is ahead beyond the interval (low > 0), behind it (high < 0), or neither.
  bool a_ahead() const { return low > 0.0; }
  bool a_behind() const { return high < 0.0; }  ///< see a_ahead
};

/// Paired bootstrap of system `a` against system `b` (one output each per reference) by
/// `measure`; the same `seed` draws the same resamples on every machine (sacreBLEU's is 12345).
/// Throws std::invalid_argument if the lists differ in length or are empty, or `resamples` is 0.
PairedBootstrap paired_bootstrap(const std::vector<std::string>& a,
                                 const std::vector<std::string>& b,
                                 const std::vector<std::string>& references, Measure measure,
                                 std::size_t resamples = 1000, std::uint64_t seed = 12345);

/// The names of a text: its words (sacreBLEU's 13a tokens, without quotes, brackets or a
/// possessive 's) that begin with a capital letter and do not begin a sentence (the text's first
/// word, a word after a full stop, a question or exclamation mark or a colon, or one that opens a
/// quotation), "I" aside.
std::vector<std::string> names_in(const std::string& text);

/// How many of the references' names the outputs write.
struct NamesKept {
  long kept = 0;   ///< names of a reference that its output writes (each at most as often)
  long names = 0;  ///< names of the references, counted with repeats
  /// kept / names, in percent (0 if there are none).
  double percent() const { return names ? 100.0 * static_cast<double>(kept) / names : 0.0; }
};
/// names_in() of every reference, looked for among the words of its output (anywhere, in any
/// position). Throws as corpus_bleu does.
NamesKept names_kept(const std::vector<std::string>& outputs,
                     const std::vector<std::string>& references);

/// How much an output repeats itself: its n-grams (13a tokens) that occurred before in the same
/// text ("the livestock, the livestock, the livestock" repeats "the livestock , the").
struct Repeats {
  long repeated = 0;  ///< n-grams seen before in the same text
  long ngrams = 0;    ///< every n-gram
  /// repeated / ngrams, in percent (0 if there are none).
  double percent() const { return ngrams ? 100.0 * static_cast<double>(repeated) / ngrams : 0.0; }
};
/// The repeated n-grams of every text, added up.
Repeats repeated_ngrams(const std::vector<std::string>& texts, std::size_t n = 4);

}  // namespace translate
