#include "translate/translation_metrics.hpp"

#include <cmath>
#include <cstdio>
#include <map>
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

double corpus_chrf(const std::vector<std::string>& outputs,
                   const std::vector<std::string>& references) {
  require_same_size(outputs, references, "corpus_chrf");
  constexpr std::size_t kOrder = 6;
  constexpr double kBetaSquared = 4.0;
  std::array<double, kOrder> output_ngrams{}, reference_ngrams{}, matches{};
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto characters = [](const std::string& text) {
      std::vector<std::string> chars;
      for (const std::string& word : split_whitespace(text))
        for (std::string& c : tfm::utf8_characters(word)) chars.push_back(std::move(c));
      return chars;
    };
    const std::vector<std::string> out = characters(outputs[i]), ref = characters(references[i]);
    for (std::size_t n = 1; n <= kOrder; ++n) {
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
      output_ngrams[n - 1] +=
          in_ref.empty() ? 0 : out_count;  // sacreBLEU: no reference n-gram, no hits
      reference_ngrams[n - 1] += ref_count;
      matches[n - 1] += match;
    }
  }
  double precision = 0.0, recall = 0.0;
  std::size_t orders = 0;
  for (std::size_t n = 0; n < kOrder; ++n) {
    if (output_ngrams[n] > 0 && reference_ngrams[n] > 0) {
      precision += matches[n] / output_ngrams[n];
      recall += matches[n] / reference_ngrams[n];
      ++orders;
    }
  }
  if (orders == 0) return 0.0;
  precision /= static_cast<double>(orders);
  recall /= static_cast<double>(orders);
  if (precision + recall == 0.0) return 0.0;
  return 100.0 * (1.0 + kBetaSquared) * precision * recall / (kBetaSquared * precision + recall);
}

}  // namespace translate
