#include "translate/translation_metrics.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <stdexcept>

#include "tfm/data/vocabulary.hpp"

namespace translate {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Pass 1 of 13a: these ASCII characters are split off: {|}~ [\]^_` space!"#$%& ()*+ :;<=>?@ /
bool split_off(char c) {
  return (c >= '{' && c <= '~') || (c >= '[' && c <= '`') || (c >= ' ' && c <= '&') ||
         (c >= '(' && c <= '+') || (c >= ':' && c <= '@') || c == '/';
}

// The bytes of the UTF-8 character that starts at s[i] (1 for ASCII and stray bytes).
std::size_t character_bytes(const std::string& s, std::size_t i) {
  std::size_t n = 1;
  while (i + n < s.size() && (static_cast<unsigned char>(s[i + n]) & 0xC0) == 0x80 &&
         static_cast<unsigned char>(s[i]) >= 0xC0)
    ++n;
  return n;
}

// Python's str.split(): whitespace is ASCII's and Unicode's (NBSP, U+2000-U+200A, ...).
std::vector<std::string> split_whitespace(const std::string& s) {
  std::vector<std::string> words;
  std::string word;
  for (const std::string& c : tfm::utf8_characters(s)) {
    static const std::vector<std::string> kSpaces = {" ",
                                                     "\t",
                                                     "\n",
                                                     "\v",
                                                     "\f",
                                                     "\r",
                                                     "\x1c",
                                                     "\x1d",
                                                     "\x1e",
                                                     "\x1f",
                                                     "\xC2\x85",
                                                     "\xC2\xA0",
                                                     "\xE1\x9A\x80",
                                                     "\xE2\x80\xA8",
                                                     "\xE2\x80\xA9",
                                                     "\xE2\x80\xAF",
                                                     "\xE2\x81\x9F",
                                                     "\xE3\x80\x80"};
    bool space = false;
    for (const std::string& s2 : kSpaces) space = space || c == s2;
    if (c.size() == 3 && c[0] == '\xE2' && c[1] == '\x80' &&
        static_cast<unsigned char>(c[2]) <= 0x8A)
      space = true;
    if (space) {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

double my_log(double x) {
  return x == 0.0 ? -9999999999.0 : std::log(x);
}  // sacreBLEU's floor

void require_same_size(const std::vector<std::string>& outputs,
                       const std::vector<std::string>& references, const char* who) {
  if (outputs.size() != references.size())
    throw std::invalid_argument(std::string(who) + ": " + std::to_string(outputs.size()) +
                                " outputs but " + std::to_string(references.size()) +
                                " references");
  if (outputs.empty()) throw std::invalid_argument(std::string(who) + ": no sentences to score");
}

std::string rstrip(const std::string& s) {
  std::size_t end = s.size();
  while (end > 0 &&
         (s[end - 1] == ' ' || s[end - 1] == '\t' || s[end - 1] == '\n' || s[end - 1] == '\r'))
    --end;
  return s.substr(0, end);
}

}  // namespace

std::vector<std::string> tokenize_13a(const std::string& input) {
  std::string line = replace_all(input, "<skipped>", "");
  line = replace_all(line, "-\n", "");
  line = replace_all(line, "\n", " ");
  line = replace_all(
      replace_all(replace_all(replace_all(line, "&quot;", "\""), "&amp;", "&"), "&lt;", "<"),
      "&gt;", ">");
  line = " " + line + " ";
  // Each pass is one of sacreBLEU's regular expressions, applied left to right without overlaps.
  std::string out;
  for (const char c : line) out += split_off(c) ? std::string(" ") + c + " " : std::string(1, c);
  line.swap(out);
  out.clear();
  for (std::size_t i = 0; i < line.size(); ++i) {  // ([^0-9])([\.,]) -> "\1 \2 "
    if (i + 1 < line.size() && !is_digit(line[i]) && (line[i + 1] == '.' || line[i + 1] == ',')) {
      out += line[i];
      out += ' ';
      out += line[++i];
      out += ' ';
    } else {
      out += line[i];
    }
  }
  line.swap(out);
  out.clear();
  for (std::size_t i = 0; i < line.size(); ++i) {  // ([\.,])([^0-9]) -> " \1 \2"
    if (i + 1 < line.size() && (line[i] == '.' || line[i] == ',') && !is_digit(line[i + 1])) {
      const std::size_t n = character_bytes(line, i + 1);
      out += ' ';
      out += line[i];
      out += ' ';
      out += line.substr(i + 1, n);
      i += n;
    } else {
      out += line[i];
    }
  }
  line.swap(out);
  out.clear();
  for (std::size_t i = 0; i < line.size(); ++i) {  // ([0-9])(-) -> "\1 \2 "
    if (i + 1 < line.size() && is_digit(line[i]) && line[i + 1] == '-') {
      out += line[i];
      out += " - ";
      ++i;
    } else {
      out += line[i];
    }
  }
  return split_whitespace(out);
}

BleuStatistics& BleuStatistics::operator+=(const BleuStatistics& other) {
  for (std::size_t n = 0; n < 4; ++n) {
    matches[n] += other.matches[n];
    totals[n] += other.totals[n];
  }
  output_length += other.output_length;
  reference_length += other.reference_length;
  return *this;
}

BleuStatistics bleu_statistics(const std::vector<std::string>& output,
                               const std::vector<std::string>& reference) {
  BleuStatistics s;
  s.output_length = static_cast<long>(output.size());
  s.reference_length = static_cast<long>(reference.size());
  for (std::size_t n = 1; n <= 4; ++n) {
    const auto ngrams = [n](const std::vector<std::string>& tokens) {
      std::map<std::vector<std::string>, long> counts;
      for (std::size_t i = 0; i + n <= tokens.size(); ++i)
        ++counts[std::vector<std::string>(tokens.begin() + static_cast<long>(i),
                                          tokens.begin() + static_cast<long>(i + n))];
      return counts;
    };
    const auto in_output = ngrams(output), in_reference = ngrams(reference);
    for (const auto& [ngram, count] : in_output) {
      s.totals[n - 1] += count;
      if (const auto r = in_reference.find(ngram); r != in_reference.end())
        s.matches[n - 1] += std::min(count, r->second);
    }
  }
  return s;
}

// [bleu score]
BleuScore bleu_score(const BleuStatistics& s, BleuSmoothing smoothing) {
  BleuScore score;
  score.output_length = s.output_length;
  score.reference_length = s.reference_length;
  const double c = static_cast<double>(s.output_length),
               r = static_cast<double>(s.reference_length);
  score.brevity_penalty = c < r ? (c > 0 ? std::exp(1.0 - r / c) : 0.0) : 1.0;
  bool any_match = false;
  for (const long m : s.matches) any_match = any_match || m > 0;
  if (!any_match) return score;  // BLEU 0, as sacreBLEU says for no match at all
  double halvings = 1.0, log_sum = 0.0;
  for (std::size_t n = 0; n < 4; ++n) {
    if (s.totals[n] == 0) break;  // sacreBLEU: p_n stays 0 (and BLEU is 0)
    if (s.matches[n] > 0) {
      score.precisions[n] =
          100.0 * static_cast<double>(s.matches[n]) / static_cast<double>(s.totals[n]);
    } else if (smoothing == BleuSmoothing::kExp) {
      halvings *= 2.0;
      score.precisions[n] = 100.0 / (halvings * static_cast<double>(s.totals[n]));
    }
  }
  for (const double p : score.precisions) log_sum += my_log(p);
  score.bleu = score.brevity_penalty * std::exp(log_sum / 4.0);
  return score;
}
// [bleu score]

std::string BleuScore::to_string() const {
  char line[200];
  std::snprintf(line, sizeof line,
                "%.2f %.1f/%.1f/%.1f/%.1f (BP = %.3f ratio = %.3f hyp_len = %ld ref_len = %ld)",
                bleu, precisions[0], precisions[1], precisions[2], precisions[3], brevity_penalty,
                reference_length
                    ? static_cast<double>(output_length) / static_cast<double>(reference_length)
                    : 0.0,
                output_length, reference_length);
  return line;
}

BleuScore corpus_bleu(const std::vector<std::string>& outputs,
                      const std::vector<std::string>& references, BleuSmoothing smoothing) {
  require_same_size(outputs, references, "corpus_bleu");
  BleuStatistics total;
  for (std::size_t i = 0; i < outputs.size(); ++i)
    total += bleu_statistics(tokenize_13a(rstrip(outputs[i])), tokenize_13a(rstrip(references[i])));
  return bleu_score(total, smoothing);
}

ChrfStatistics& ChrfStatistics::operator+=(const ChrfStatistics& other) {
  for (std::size_t n = 0; n < output_ngrams.size(); ++n) {
    output_ngrams[n] += other.output_ngrams[n];
    reference_ngrams[n] += other.reference_ngrams[n];
    matches[n] += other.matches[n];
  }
  return *this;
}

ChrfStatistics chrf_statistics(const std::string& output, const std::string& reference) {
  const auto characters = [](const std::string& text) {
    std::vector<std::string> chars;
    for (const std::string& word : split_whitespace(text))
      for (std::string& c : tfm::utf8_characters(word)) chars.push_back(std::move(c));
    return chars;
  };
  const std::vector<std::string> out = characters(output), ref = characters(reference);
  ChrfStatistics s;
  for (std::size_t n = 1; n <= s.matches.size(); ++n) {
    const auto ngrams = [n](const std::vector<std::string>& chars) {
      std::map<std::string, long> counts;
      for (std::size_t k = 0; k + n <= chars.size(); ++k) {
        std::string g;
        for (std::size_t j = k; j < k + n; ++j) g += chars[j];
        ++counts[g];
      }
      return counts;
    };
    const auto in_out = ngrams(out), in_ref = ngrams(ref);
    long out_count = 0, ref_count = 0, match = 0;
    for (const auto& [g, count] : in_out) {
      out_count += count;
      if (const auto r = in_ref.find(g); r != in_ref.end()) match += std::min(count, r->second);
    }
    for (const auto& [g, count] : in_ref) ref_count += count;
    // sacreBLEU: no reference n-gram, no hits
    s.output_ngrams[n - 1] = in_ref.empty() ? 0.0 : static_cast<double>(out_count);
    s.reference_ngrams[n - 1] = static_cast<double>(ref_count);
    s.matches[n - 1] = static_cast<double>(match);
  }
  return s;
}

double chrf_score(const ChrfStatistics& s) {
  constexpr double kBetaSquared = 4.0;
  double precision = 0.0, recall = 0.0;
  std::size_t orders = 0;
  for (std::size_t n = 0; n < s.matches.size(); ++n) {
    if (s.output_ngrams[n] > 0 && s.reference_ngrams[n] > 0) {
      precision += s.matches[n] / s.output_ngrams[n];
      recall += s.matches[n] / s.reference_ngrams[n];
      ++orders;
    }
  }
  if (orders == 0) return 0.0;
  precision /= static_cast<double>(orders);
  recall /= static_cast<double>(orders);
  if (precision + recall == 0.0) return 0.0;
  return 100.0 * (1.0 + kBetaSquared) * precision * recall / (kBetaSquared * precision + recall);
}

double corpus_chrf(const std::vector<std::string>& outputs,
                   const std::vector<std::string>& references) {
  require_same_size(outputs, references, "corpus_chrf");
  ChrfStatistics total;
  for (std::size_t i = 0; i < outputs.size(); ++i)
    total += chrf_statistics(outputs[i], references[i]);
  return chrf_score(total);
}

const char* measure_name(Measure measure) {
  return measure == Measure::kBleu ? "BLEU" : "chrF";
}

double corpus_score(const std::vector<std::string>& outputs,
                    const std::vector<std::string>& references, Measure measure) {
  return measure == Measure::kBleu ? corpus_bleu(outputs, references).bleu
                                   : corpus_chrf(outputs, references);
}

PairedBootstrap paired_bootstrap(const std::vector<std::string>& a,
                                 const std::vector<std::string>& b,
                                 const std::vector<std::string>& references, Measure measure,
                                 std::size_t resamples, std::uint64_t seed) {
  require_same_size(a, references, "paired_bootstrap");
  require_same_size(b, references, "paired_bootstrap");
  if (resamples == 0) throw std::invalid_argument("paired_bootstrap: no resamples");
  const std::size_t n = references.size();
  // Each sentence's statistics once; a resample only adds them up.
  std::vector<BleuStatistics> bleu_a, bleu_b;
  std::vector<ChrfStatistics> chrf_a, chrf_b;
  for (std::size_t i = 0; i < n; ++i) {
    if (measure == Measure::kBleu) {
      const auto ref = tokenize_13a(rstrip(references[i]));
      bleu_a.push_back(bleu_statistics(tokenize_13a(rstrip(a[i])), ref));
      bleu_b.push_back(bleu_statistics(tokenize_13a(rstrip(b[i])), ref));
    } else {
      chrf_a.push_back(chrf_statistics(a[i], references[i]));
      chrf_b.push_back(chrf_statistics(b[i], references[i]));
    }
  }
  const auto score = [&](const std::vector<std::size_t>& sample, bool first) {
    if (measure == Measure::kBleu) {
      BleuStatistics total;
      for (const std::size_t i : sample) total += first ? bleu_a[i] : bleu_b[i];
      return bleu_score(total).bleu;
    }
    ChrfStatistics total;
    for (const std::size_t i : sample) total += first ? chrf_a[i] : chrf_b[i];
    return chrf_score(total);
  };
  std::vector<std::size_t> all(n);
  for (std::size_t i = 0; i < n; ++i) all[i] = i;
  PairedBootstrap result;
  result.a = score(all, true);
  result.b = score(all, false);
  result.resamples = resamples;
  // The same n sentences, drawn with replacement, for both systems; a portable generator, so that
  // every machine draws the same resamples.
  std::mt19937_64 random(seed);
  std::vector<double> differences;
  std::vector<std::size_t> sample(n);
  std::size_t not_ahead = 0;
  for (std::size_t r = 0; r < resamples; ++r) {
    for (std::size_t& i : sample) i = static_cast<std::size_t>(random() % n);
    const double d = score(sample, true) - score(sample, false);
    if (d <= 0.0) ++not_ahead;
    differences.push_back(d);
  }
  std::sort(differences.begin(), differences.end());
  // The 2.5 % smallest and largest differences lie outside the interval.
  const auto outside = static_cast<std::size_t>(0.025 * static_cast<double>(resamples));
  result.low = differences[outside];
  result.high = differences[resamples - 1 - outside];
  result.not_ahead = static_cast<double>(not_ahead) / static_cast<double>(resamples);
  return result;
}

namespace {

// A token without the quotes and brackets around it and without a possessive `’s`, and whether
// an opening quote (or ¿ ¡) began it.
std::string bare_word(std::string token, bool* opens_quote = nullptr) {
  static const std::vector<std::string> kOpen = {"“", "‘", "\"", "'", "(", "[", "¿", "¡"},
                                        kClose = {"”", "’", "\"", "'", ")", "]"},
                                        kPossessive = {"’s", "'s"};
  bool opened = false;
  for (bool again = true; again;) {
    again = false;
    for (const std::string& q : kOpen)
      if (token.size() > q.size() && token.compare(0, q.size(), q) == 0) {
        token.erase(0, q.size());
        opened = again = true;
      }
  }
  for (const std::string& p : kPossessive)
    if (token.size() > p.size() && token.compare(token.size() - p.size(), p.size(), p) == 0)
      token.resize(token.size() - p.size());
  for (bool again = true; again;) {
    again = false;
    for (const std::string& q : kClose)
      if (token.size() > q.size() && token.compare(token.size() - q.size(), q.size(), q) == 0) {
        token.resize(token.size() - q.size());
        again = true;
      }
  }
  if (opens_quote) *opens_quote = opened;
  return token;
}

bool starts_with_capital(const std::string& word) {
  if (word.empty()) return false;
  if (word[0] >= 'A' && word[0] <= 'Z') return true;
  static const std::vector<std::string> kCapitals = {"Á", "É", "Í", "Ó", "Ú", "Ñ", "Ü"};
  for (const std::string& c : kCapitals)
    if (word.compare(0, c.size(), c) == 0) return true;
  return false;
}

}  // namespace

std::vector<std::string> names_in(const std::string& text) {
  std::vector<std::string> names;
  bool sentence_start = true;
  for (const std::string& token : tokenize_13a(text)) {
    if (token == "." || token == "!" || token == "?" || token == ":") {
      sentence_start = true;
      continue;
    }
    bool opens_quote = false;
    const std::string word = bare_word(token, &opens_quote);
    // A letter or digit: ASCII, or Latin with an accent (UTF-8 lead bytes 0xC3-0xC9); not a
    // quote or a dash.
    const auto first = word.empty() ? 0u : static_cast<unsigned char>(word[0]);
    const bool is_word = std::isalnum(static_cast<int>(first)) || (first >= 0xC3 && first <= 0xC9);
    if (!is_word) continue;  // a comma, a quote: the sentence goes on (or starts after it)
    const bool pronoun = word == "I" || word.rfind("I’", 0) == 0 || word.rfind("I'", 0) == 0;
    if (!sentence_start && !opens_quote && !pronoun && starts_with_capital(word))
      names.push_back(word);
    sentence_start = false;
  }
  return names;
}

NamesKept names_kept(const std::vector<std::string>& outputs,
                     const std::vector<std::string>& references) {
  require_same_size(outputs, references, "names_kept");
  NamesKept kept;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    std::map<std::string, long> wanted, written;
    for (const std::string& name : names_in(references[i])) ++wanted[name];
    if (wanted.empty()) continue;
    for (const std::string& token : tokenize_13a(outputs[i])) ++written[bare_word(token)];
    for (const auto& [name, count] : wanted) {
      kept.names += count;
      if (const auto w = written.find(name); w != written.end())
        kept.kept += std::min(count, w->second);
    }
  }
  return kept;
}

Repeats repeated_ngrams(const std::vector<std::string>& outputs, std::size_t n) {
  Repeats r;
  for (const std::string& output : outputs) {
    const std::vector<std::string> tokens = tokenize_13a(rstrip(output));
    std::map<std::vector<std::string>, long> seen;
    for (std::size_t i = 0; i + n <= tokens.size(); ++i) {
      ++r.ngrams;
      if (seen[std::vector<std::string>(tokens.begin() + static_cast<long>(i),
                                        tokens.begin() + static_cast<long>(i + n))]++ > 0)
        ++r.repeated;
    }
  }
  return r;
}

}  // namespace translate
