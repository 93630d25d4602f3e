#include "tfm/tasks/vowel_restoration.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "tfm/core/trace.hpp"
#include "tfm/decode/decoding.hpp"
#include "tfm/support/text_file.hpp"

namespace tfm {
namespace {

bool is_ascii_letter(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}
char to_lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}
bool is_vowel(char c) {
  return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u';
}

std::string describe_options(const VowelOptions& o) {
  std::ostringstream out;
  out << "window " << o.window << ", held_out_fraction " << o.held_out_fraction;
  return out.str();
}

}  // namespace

// [normalize]
std::string normalize_line(const std::string& line, const std::string& also_kept) {
  // re.sub('[^A-Za-z]+', ' ', line).strip().lower(): a run of non-letters becomes one space,
  // unless it is at either end of the line (strip removes it there).
  std::string out;
  bool gap = false;  // non-letters seen since the last letter
  for (char c : line) {
    if (!is_ascii_letter(c) && also_kept.find(c) == std::string::npos) {
      gap = true;
      continue;
    }
    if (gap && !out.empty()) out += ' ';
    gap = false;
    out += to_lower(c);
  }
  return out;
}

std::string normalize_text(const std::string& raw) {
  // ''.join(normalize(line) for line in f.readlines()): no separator between lines, so the
  // last word of a line runs into the first word of the next ("doyle" + "this").
  std::string text;
  std::size_t begin = 0;
  while (begin < raw.size()) {
    std::size_t end = raw.find_first_of("\r\n", begin);
    if (end == std::string::npos) end = raw.size();
    text += normalize_line(raw.substr(begin, end - begin));
    begin = end + 1;
  }
  return text;
}
// [normalize]

std::string mask_vowels(const std::string& text) {
  std::string masked = text;
  for (char& c : masked)
    if (is_vowel(c)) c = kVowelMask;
  return masked;
}

namespace {

std::string quoted_list(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "'" : ", '") + item + "'";
  return text;
}

}  // namespace

TypedText read_typed_text(const std::string& typed) {
  const std::string masked_letter(1, kVowelMask);
  TypedText read;
  const std::string normalised = normalize_line(typed, masked_letter);
  std::vector<std::string> capitals, removed;
  const auto add_once = [](std::vector<std::string>& list, const std::string& item) {
    if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
  };
  for (const std::string& c : utf8_characters(typed)) {
    if (c.size() == 1 && is_ascii_letter(c[0]) && to_lower(c[0]) != c[0]) add_once(capitals, c);
    const bool kept = c.size() == 1 && (is_ascii_letter(c[0]) || c[0] == kVowelMask);
    if (!kept && c != " " && c != "\t" && c != "\r" && c != "\n") add_once(removed, c);
  }
  if (!capitals.empty())
    read.notes.push_back("lower-cased " + quoted_list(capitals) +
                         ": the model was trained on lower-case text");
  if (!removed.empty())
    read.notes.push_back("left out " + quoted_list(removed) +
                         " as training did: it kept only the letters a-z and single spaces" +
                         " (an accented letter is not one of them)");
  if (normalised.find(kVowelMask) != std::string::npos) {
    read.masked = normalised;
    read.notes.push_back("took each * as a hidden vowel; the letters you typed stay as they are");
  } else {
    read.masked = mask_vowels(normalised);
    const auto hidden =
        static_cast<std::size_t>(std::count(read.masked.begin(), read.masked.end(), kVowelMask));
    if (hidden > 0)
      read.notes.push_back("hid the " + std::to_string(hidden) +
                           (hidden == 1 ? " vowel" : " vowels") + " (a e i o u) as *");
  }
  return read;
}

std::vector<std::string> text_windows(const std::string& text, std::size_t width) {
  if (width == 0) throw std::invalid_argument("text_windows: the width must be at least 1");
  std::vector<std::string> windows;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = std::min(text.size(), start + width);
    if (end < text.size()) {  // cut after the last space in the window, if there is one
      const std::size_t space = text.rfind(' ', end - 1);
      if (space != std::string::npos && space >= start) end = space + 1;
    }
    windows.push_back(text.substr(start, end - start));
    start = end;
  }
  return windows;
}

std::vector<std::int32_t> restore_input_ids(const Vocabulary& vocabulary, const std::string& text,
                                            std::size_t max_len) {
  if (text.empty()) throw std::invalid_argument("the text is empty");
  std::vector<std::int32_t> ids =
      vocabulary.encode(text, OnUnknown::kThrow);  // names the character
  if (ids.size() > max_len)
    throw std::invalid_argument("the text has " + std::to_string(ids.size()) +
                                " characters but the model's positional table holds " +
                                std::to_string(max_len));
  return ids;
}

Vocabulary vowel_vocabulary() {
  std::vector<std::string> symbols = {std::string(1, kVowelMask), " "};
  for (char c = 'a'; c <= 'z'; ++c) symbols.emplace_back(1, c);
  return Vocabulary(Tokenization::kCharacters, symbols);
}

const char* split_name(Split split) {
  return split == Split::kTrain ? "train" : "held-out";
}

VowelRestoration::VowelRestoration(const std::string& raw_text, const VowelOptions& options,
                                   const std::string& source)
    : options_(options),
      source_(source),
      raw_bytes_(raw_text.size()),
      text_(normalize_text(raw_text)),
      vocabulary_(vowel_vocabulary()) {
  if (options.window == 0) throw std::invalid_argument("VowelRestoration: window must be >= 1");
  if (options.stride == 0) throw std::invalid_argument("VowelRestoration: stride must be >= 1");
  if (!(options.held_out_fraction >= 0.0 && options.held_out_fraction < 1.0))
    throw std::invalid_argument("VowelRestoration: held_out_fraction must be in [0, 1), got " +
                                std::to_string(options.held_out_fraction));

  // [split]
  // The held-out part is the END of the text: windows of the training part lie entirely
  // before the boundary, held-out windows entirely after it, so no example is seen in both.
  const std::size_t n = text_.size();
  const auto held_out =
      static_cast<std::size_t>(std::llround(static_cast<double>(n) * options.held_out_fraction));
  boundary_ = n - held_out;
  // [split]

  const bool train_too_short = boundary_ < options.window;
  const bool held_out_too_short = options.held_out_fraction > 0.0 && held_out < options.window;
  if (train_too_short || held_out_too_short) {
    std::ostringstream message;
    message << "corpus '" << source_ << "' is too short: " << raw_bytes_ << " bytes give " << n
            << " characters after preprocessing, split into " << boundary_ << " for training and "
            << held_out << " held out (" << describe_options(options)
            << "); each part needs at least one window of " << options.window << " characters";
    throw std::invalid_argument(message.str());
  }

  if (text_.find_first_of("aeiou") == std::string::npos)
    throw std::invalid_argument("corpus '" + source_ +
                                "' has no vowel (a, e, i, o, u) after preprocessing: "
                                "there is nothing to restore");
  plain_ids_ = vocabulary_.encode(text_, OnUnknown::kThrow);
  masked_ids_ = vocabulary_.encode(mask_vowels(text_), OnUnknown::kThrow);
}

VowelRestoration VowelRestoration::from_file(const std::string& path, const VowelOptions& options) {
  // Not a directory, pipe or device; not empty, not over 64 MiB, no zero byte (not text).
  const std::string raw = read_text_file(path, "corpus", kMaxCorpusBytes);
  if (const std::size_t bad = first_invalid_utf8_byte(raw); bad != std::string::npos) {
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02X",
                  static_cast<unsigned>(static_cast<unsigned char>(raw[bad])));
    throw std::runtime_error("corpus '" + path + "' is not UTF-8 text: byte " + byte +
                             " at offset " + std::to_string(bad) +
                             " (Latin-1? convert it: iconv -f latin1 -t utf-8)");
  }
  return VowelRestoration(raw, options, path);
}

std::size_t VowelRestoration::num_windows(Split split) const {
  const std::size_t begin = split == Split::kTrain ? 0 : boundary_;
  const std::size_t end = split == Split::kTrain ? boundary_ : text_.size();
  if (end - begin < options_.window) return 0;
  // Starts begin, begin + stride, ... as long as start + window <= end.
  return (end - begin - options_.window) / options_.stride + 1;
}

std::size_t VowelRestoration::window_start(Split split, std::size_t index) const {
  const std::size_t count = num_windows(split);
  if (index >= count)
    throw std::out_of_range("VowelRestoration: window " + std::to_string(index) + " of the " +
                            split_name(split) + " part, which has " + std::to_string(count));
  return (split == Split::kTrain ? 0 : boundary_) + index * options_.stride;
}

std::string VowelRestoration::window(Split split, std::size_t index) const {
  return text_.substr(window_start(split, index), options_.window);
}

// [vowel batch]
Batch VowelRestoration::batch(Split split, const std::vector<std::size_t>& indices) const {
  // -> src, tgt_in, tgt_out: [n, window] each
  const std::size_t n = indices.size(), W = options_.window;
  Batch batch{TokenIds::from_shape({n, W}), TokenIds::from_shape({n, W}),
              TokenIds::from_shape({n, W})};
  for (std::size_t b = 0; b < n; ++b) {
    const std::size_t start = window_start(split, indices[b]);
    for (std::size_t t = 0; t < W; ++t) {
      batch.src(b, t) = masked_ids_[start + t];     // vowels hidden
      batch.tgt_out(b, t) = plain_ids_[start + t];  // the window itself
      // <bos> + window[:-1]: position t reads the character before the one it predicts.
      batch.tgt_in(b, t) = t == 0 ? kBosId : plain_ids_[start + t - 1];
    }
  }
  trace_batch("VowelRestoration", batch);
  return batch;
}
// [vowel batch]

std::vector<std::size_t> held_out_windows(const VowelRestoration& data, std::size_t count) {
  return spread_windows(data, Split::kHeldOut, count);
}

std::vector<std::size_t> spread_windows(const VowelRestoration& data, Split split,
                                        std::size_t count) {
  const std::size_t available = data.num_windows(split);
  const std::size_t spacing =
      std::max(data.options().window, available / std::max<std::size_t>(count, 1));
  std::vector<std::size_t> indices;
  for (std::size_t i = 0; i < available && indices.size() < count; i += spacing)
    indices.push_back(i);
  return indices;
}

TokenIds restore_source_ids(const Vocabulary& vocabulary, const std::string& text,
                            std::size_t max_len) {
  const std::vector<std::int32_t> ids = restore_input_ids(vocabulary, text, max_len);
  TokenIds row = TokenIds::from_shape({1, ids.size()});
  std::copy(ids.begin(), ids.end(), row.begin());
  return row;
}

TokenIds vowel_forcing(const TokenIds& src, const Vocabulary& source_vocabulary,
                       const Vocabulary& target_vocabulary) {
  // src [B, S] (vowels hidden as '*') -> forced [B, S]
  const std::int32_t hidden = source_vocabulary.id(std::string(1, kVowelMask));
  TokenIds forced = TokenIds::from_shape(src.shape());
  for (std::size_t i = 0; i < src.size(); ++i) {
    const std::int32_t id = src.data()[i];
    // A '*' is the model's to fill; a letter or a space shown in the input is kept as it is.
    forced.data()[i] = (id == hidden || (id >= 0 && id < kFirstSymbolId))
                           ? kFreeToken
                           : target_vocabulary.id(source_vocabulary.symbol(id));
  }
  return forced;
}

std::vector<std::int32_t> vowel_ids(const Vocabulary& vocabulary) {
  std::vector<std::int32_t> ids;
  for (const char* vowel : {"a", "e", "i", "o", "u"}) ids.push_back(vocabulary.id(vowel));
  return ids;
}

}  // namespace tfm
