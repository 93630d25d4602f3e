#include "tfm/data/pronunciations.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "tfm/core/random.hpp"
#include "tfm/io/text_file.hpp"

namespace tfm {

namespace {

// One line of the lexicon, read left to right; every error names the file, line and column.
class LineReader {
 public:
  LineReader(const std::string& line, const std::string& name, std::size_t number)
      : line_(line), where_(name + ", line " + std::to_string(number)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw DictionaryError(where_ + ": " + what + " (column " + std::to_string(pos_ + 1) + " of '" +
                          (line_.size() > 80 ? line_.substr(0, 80) + "..." : line_) + "')");
  }
  void skip_spaces() {
    while (pos_ < line_.size() && (line_[pos_] == ' ' || line_[pos_] == '\t' || line_[pos_] == '\r')) ++pos_;
  }
  bool peek(char c) {
    skip_spaces();
    return pos_ < line_.size() && line_[pos_] == c;
  }
  void expect(char c, const char* what) {
    if (!peek(c)) fail(std::string("expected '") + c + "' " + what);
    ++pos_;
  }
  std::string quoted() {
    expect('"', "to open the word");
    const std::size_t end = line_.find('"', pos_);
    if (end == std::string::npos) fail("the word's quote is not closed");
    std::string word = line_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return word;
  }
  std::string atom(const char* what) {
    skip_spaces();
    const std::size_t start = pos_;
    while (pos_ < line_.size() && line_[pos_] != ' ' && line_[pos_] != '\t' && line_[pos_] != '(' &&
           line_[pos_] != ')' && line_[pos_] != '"')
      ++pos_;
    if (pos_ == start) fail(std::string("expected ") + what);
    return line_.substr(start, pos_ - start);
  }
  void expect_end() {
    skip_spaces();
    if (pos_ != line_.size()) fail("unexpected text after the entry");
  }
  const std::string& where() const { return where_; }

 private:
  const std::string& line_;
  std::string where_;
  std::size_t pos_ = 0;
};

// FNV-1a, 64 bits: a hash that is the same everywhere (std::hash is not).
std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::vector<std::string> letter_symbols() {
  std::vector<std::string> letters;
  for (char c = 'a'; c <= 'z'; ++c) letters.emplace_back(1, c);
  return letters;
}

// Fisher-Yates with tfm::Rng.
template <class T>
void shuffle(std::vector<T>& items, Rng& rng) {
  for (std::size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[rng.below(i)]);
}

}  // namespace

const std::vector<std::string>& phoneme_symbols() {
  static const std::vector<std::string> symbols = {
      // 15 vowels
      "aa", "ae", "ah", "ao", "aw", "ay", "eh", "er", "ey", "ih", "iy", "ow", "oy", "uh", "uw",
      // 24 consonants
      "b", "ch", "d", "dh", "f", "g", "hh", "jh", "k", "l", "m", "n", "ng", "p", "r", "s", "sh", "t",
      "th", "v", "w", "y", "z", "zh"};
  return symbols;
}

std::string stressless_phoneme(const std::string& phone) {
  std::string p = phone;
  while (!p.empty() && p.back() >= '0' && p.back() <= '9') p.pop_back();
  if (p == "ax") p = "ah";  // Festival's unstressed schwa is CMUdict's AH0
  const auto& known = phoneme_symbols();
  if (std::find(known.begin(), known.end(), p) == known.end())
    throw std::invalid_argument("unknown phone '" + phone + "' (not one of CMUdict's 39 phonemes, nor ax)");
  return p;
}

// [read lexicon]
std::vector<DictionaryWord> parse_festival_lexicon(const std::string& text, const std::string& name) {
  std::map<std::string, std::vector<std::vector<std::string>>> entries;
  std::size_t number = 0, start = 0;
  bool header = false;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    ++number;
    if (number == 1) {
      if (line != "MNCL" && line != "MNCL\r")
        throw DictionaryError(name + ", line 1: expected the header 'MNCL' of a Festival compiled lexicon, got '" +
                              line.substr(0, 80) + "'");
      header = true;
      continue;
    }
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;  // blank lines
    LineReader in(line, name, number);
    in.expect('(', "to open the entry");
    std::string word = in.quoted();
    if (word.empty()) in.fail("the word is empty");
    for (char& c : word) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      if (c < 'a' || c > 'z') in.fail("the word '" + word + "' has a character other than a letter a-z");
    }
    in.atom("a part of speech (e.g. nil)");
    in.expect('(', "to open the syllables");
    std::vector<std::string> phonemes;
    while (!in.peek(')')) {
      in.expect('(', "to open a syllable");
      in.expect('(', "to open a syllable's phones");
      if (in.peek(')')) in.fail("a syllable without phones");
      while (!in.peek(')')) {
        const std::string phone = in.atom("a phone");
        try {
          phonemes.push_back(stressless_phoneme(phone));
        } catch (const std::invalid_argument& e) {
          in.fail(e.what());
        }
      }
      in.expect(')', "to close a syllable's phones");
      const std::string stress = in.atom("the syllable's stress (0, 1 or 2)");
      if (stress != "0" && stress != "1" && stress != "2") in.fail("a stress must be 0, 1 or 2, got '" + stress + "'");
      in.expect(')', "to close a syllable");
    }
    in.expect(')', "to close the syllables");
    in.expect(')', "to close the entry");
    in.expect_end();
    if (phonemes.empty()) in.fail("the word '" + word + "' has no phones");
    auto& list = entries[word];
    if (std::find(list.begin(), list.end(), phonemes) == list.end()) list.push_back(std::move(phonemes));
  }
  if (!header) throw DictionaryError(name + ": the dictionary is empty (no 'MNCL' header)");
  if (entries.empty()) throw DictionaryError(name + ": the dictionary has a header but no entries");
  std::vector<DictionaryWord> words;
  words.reserve(entries.size());
  for (auto& [word, pronunciations] : entries) words.push_back({word, std::move(pronunciations)});
  return words;
}
// [read lexicon]

std::vector<DictionaryWord> read_festival_lexicon(const std::string& path) {
  return parse_festival_lexicon(read_text_file(path, "dictionary"), path);
}

const char* word_split_name(WordSplit split) {
  switch (split) {
    case WordSplit::kTrain: return "train";
    case WordSplit::kDev: return "dev";
    case WordSplit::kTest: return "test";
  }
  return "?";
}

// [word split]
WordSplit word_split(const std::string& word) {
  const std::uint64_t bucket = fnv1a(word) % 100;
  return bucket < 90 ? WordSplit::kTrain : bucket < 95 ? WordSplit::kDev : WordSplit::kTest;
}
// [word split]

PronunciationData::PronunciationData(const std::vector<DictionaryWord>& words)
    : letters_(Tokenization::kCharacters, letter_symbols()), phonemes_(Tokenization::kWords, phoneme_symbols()) {
  for (const DictionaryWord& w : words) {
    if (w.pronunciations.empty()) throw std::invalid_argument("the word '" + w.word + "' has no pronunciation");
    max_letters_ = std::max(max_letters_, w.word.size());
    for (const auto& p : w.pronunciations) max_phonemes_ = std::max(max_phonemes_, p.size());
    parts_[static_cast<int>(word_split(w.word))].push_back(w);
  }
  for (auto& part : parts_) {
    std::sort(part.begin(), part.end(), [](const DictionaryWord& a, const DictionaryWord& b) { return a.word < b.word; });
    if (part.empty()) throw std::invalid_argument("the dictionary is too small: one of train/dev/test has no word");
  }
  const auto& train = parts_[static_cast<int>(WordSplit::kTrain)];
  for (std::size_t w = 0; w < train.size(); ++w)
    for (std::size_t p = 0; p < train[w].pronunciations.size(); ++p) pairs_.emplace_back(w, p);
}

PronunciationData PronunciationData::from_file(const std::string& path) {
  return PronunciationData(read_festival_lexicon(path));
}

std::string PronunciationData::summary() const {
  std::size_t total = 0, several = 0;
  for (const auto& part : parts_)
    for (const DictionaryWord& w : part) {
      ++total;
      several += w.pronunciations.size() > 1;
    }
  return std::to_string(total) + " words, " + std::to_string(several) + " of them with several pronunciations; by word: " +
         std::to_string(words(WordSplit::kTrain).size()) + " train (" + std::to_string(pairs_.size()) + " pairs), " +
         std::to_string(words(WordSplit::kDev).size()) + " dev, " + std::to_string(words(WordSplit::kTest).size()) +
         " test; " + std::to_string(letters_.size() - kFirstSymbolId) + " letters, " +
         std::to_string(phonemes_.size() - kFirstSymbolId) + " phonemes; longest word " + std::to_string(max_letters_) +
         " letters, longest pronunciation " + std::to_string(max_phonemes_) + " phonemes\n";
}

// [pair batch]
Batch PronunciationData::pair_batch(const std::vector<std::pair<const DictionaryWord*, std::size_t>>& pairs) const {
  std::size_t src_len = 1, tgt_len = 1;
  for (const auto& [word, p] : pairs) {
    src_len = std::max(src_len, word->word.size());
    tgt_len = std::max(tgt_len, word->pronunciations.at(p).size() + 1);  // + <bos> / <eos>
  }
  const std::size_t n = pairs.size();
  // <pad> (id 0) everywhere the word or its pronunciation has ended: the padding masks hide it
  // from attention and the loss ignores it.
  Batch batch{TokenIds(xt::zeros<std::int32_t>({n, src_len})), TokenIds(xt::zeros<std::int32_t>({n, tgt_len})),
              TokenIds(xt::zeros<std::int32_t>({n, tgt_len}))};
  for (std::size_t b = 0; b < n; ++b) {
    const DictionaryWord& w = *pairs[b].first;
    for (std::size_t i = 0; i < w.word.size(); ++i) batch.src(b, i) = letters_.id(std::string(1, w.word[i]));
    const auto& phones = w.pronunciations[pairs[b].second];
    batch.tgt_in(b, 0) = kBosId;
    for (std::size_t i = 0; i < phones.size(); ++i) {
      const std::int32_t id = phonemes_.id(phones[i]);
      batch.tgt_in(b, i + 1) = id;
      batch.tgt_out(b, i) = id;
    }
    batch.tgt_out(b, phones.size()) = kEosId;
  }
  return batch;
}
// [pair batch]

Batch PronunciationData::batch(WordSplit split, std::size_t first, std::size_t count) const {
  const auto& part = words(split);
  std::vector<std::pair<const DictionaryWord*, std::size_t>> pairs;
  for (std::size_t i = first; i < std::min(part.size(), first + count); ++i) pairs.emplace_back(&part[i], 0);
  if (pairs.empty()) throw std::invalid_argument(std::string("no ") + word_split_name(split) + " word from " + std::to_string(first));
  return pair_batch(pairs);
}

// [bucketed batches]
Batch PronunciationData::training_batch(std::size_t index, std::size_t batch_size, std::uint64_t seed) const {
  if (batch_size == 0 || batch_size > pairs_.size())
    throw std::invalid_argument("batch size must be from 1 to " + std::to_string(pairs_.size()) + ", got " +
                                std::to_string(batch_size));
  const std::size_t per_epoch = pairs_.size() / batch_size;
  const std::size_t epoch = index / per_epoch, position = index % per_epoch;
  // The plan of one epoch depends only on (seed, epoch); the last one made is kept.
  EpochPlan& plan = plan_;
  if (plan.batches.empty() || plan.seed != seed || plan.epoch != epoch || plan.batch_size != batch_size) {
    Rng rng(seed * 0x9E3779B97F4A7C15ull + epoch + 1);
    std::vector<std::size_t> order(pairs_.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    shuffle(order, rng);
    order.resize(per_epoch * batch_size);
    const auto& train = parts_[static_cast<int>(WordSplit::kTrain)];
    const auto length = [&](std::size_t i) {
      const auto& [w, p] = pairs_[i];
      return std::make_pair(train[w].word.size(), train[w].pronunciations[p].size());
    };
    const std::size_t chunk = 32 * batch_size;
    for (std::size_t c = 0; c < order.size(); c += chunk) {
      const auto begin = order.begin() + static_cast<std::ptrdiff_t>(c);
      const auto end = order.begin() + static_cast<std::ptrdiff_t>(std::min(order.size(), c + chunk));
      std::stable_sort(begin, end, [&](std::size_t a, std::size_t b) { return length(a) < length(b); });
    }
    plan = EpochPlan{seed, epoch, batch_size, {}};
    for (std::size_t b = 0; b < per_epoch; ++b)
      plan.batches.emplace_back(order.begin() + static_cast<std::ptrdiff_t>(b * batch_size),
                                order.begin() + static_cast<std::ptrdiff_t>((b + 1) * batch_size));
    shuffle(plan.batches, rng);
  }
  const auto& train = parts_[static_cast<int>(WordSplit::kTrain)];
  std::vector<std::pair<const DictionaryWord*, std::size_t>> chosen;
  for (const std::size_t i : plan.batches[position]) chosen.emplace_back(&train[pairs_[i].first], pairs_[i].second);
  return pair_batch(chosen);
}
// [bucketed batches]

TokenIds PronunciationData::encode_words(const std::vector<std::string>& words, std::size_t max_len) const {
  if (words.empty()) throw std::invalid_argument("no word to pronounce");
  std::vector<std::string> clean;
  std::size_t longest = 0;
  for (const std::string& word : words) {
    if (word.empty()) throw std::invalid_argument("a word is empty");
    std::string w = word;
    for (std::size_t i = 0; i < w.size(); ++i) {
      char& c = w[i];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      if (c < 'a' || c > 'z') {
        const std::vector<std::string> chars = utf8_characters(word.substr(i));
        throw std::invalid_argument("the word \"" + word + "\" has the character '" + chars.front() + "' at index " +
                                    std::to_string(i) + "; the model knows only the letters a-z");
      }
    }
    if (w.size() > max_len)
      throw std::invalid_argument("the word \"" + word + "\" has " + std::to_string(w.size()) +
                                  " letters but the model's positional table holds " + std::to_string(max_len));
    longest = std::max(longest, w.size());
    clean.push_back(w);
  }
  TokenIds src = xt::zeros<std::int32_t>({clean.size(), longest});
  for (std::size_t b = 0; b < clean.size(); ++b)
    for (std::size_t i = 0; i < clean[b].size(); ++i) src(b, i) = letters_.id(std::string(1, clean[b][i]));
  return src;
}

}  // namespace tfm
