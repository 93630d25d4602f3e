#include "pronounce/pronunciations.hpp"

#include <algorithm>

#include "tfm/core/random.hpp"
#include "tfm/engine/fnv1a.hpp"

namespace pronounce {

using tfm::Batch;
using tfm::kBosId;
using tfm::kEosId;
using tfm::kFirstSymbolId;
using tfm::Rng;
using tfm::TokenIds;
using tfm::Tokenization;
using tfm::Vocabulary;

namespace {

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

const char* word_split_name(WordSplit split) {
  switch (split) {
    case WordSplit::kTrain:
      return "train";
    case WordSplit::kHeldOut:
      return "held-out";
    case WordSplit::kTest:
      return "test";
  }
  return "?";
}

// [word split]
WordSplit word_split(const std::string& word) {
  const std::uint64_t bucket = tfm::fnv1a(word) % 100;
  return bucket < 90 ? WordSplit::kTrain : bucket < 95 ? WordSplit::kHeldOut : WordSplit::kTest;
}
// [word split]

PronunciationData::PronunciationData(const std::vector<DictionaryWord>& words)
    : letters_(Tokenization::kCharacters, letter_symbols()),
      phonemes_(Tokenization::kWords, phoneme_symbols()) {
  for (const DictionaryWord& w : words) {
    if (w.pronunciations.empty())
      throw std::invalid_argument("the word '" + w.word + "' has no pronunciation");
    max_letters_ = std::max(max_letters_, w.word.size());
    for (const auto& p : w.pronunciations) max_phonemes_ = std::max(max_phonemes_, p.size());
    parts_[static_cast<int>(word_split(w.word))].push_back(w);
  }
  for (auto& part : parts_) {
    std::sort(part.begin(), part.end(),
              [](const DictionaryWord& a, const DictionaryWord& b) { return a.word < b.word; });
    if (part.empty())
      throw std::invalid_argument(
          "the dictionary is too small: one of train/held-out/test has no word");
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
  return std::to_string(total) + " words, " + std::to_string(several) +
         " of them with several pronunciations; by word: " +
         std::to_string(words(WordSplit::kTrain).size()) + " train (" +
         std::to_string(pairs_.size()) + " pairs), " +
         std::to_string(words(WordSplit::kHeldOut).size()) + " held-out, " +
         std::to_string(words(WordSplit::kTest).size()) + " test; " +
         std::to_string(letters_.size() - kFirstSymbolId) + " letters, " +
         std::to_string(phonemes_.size() - kFirstSymbolId) + " phonemes; longest word " +
         std::to_string(max_letters_) + " letters, longest pronunciation " +
         std::to_string(max_phonemes_) + " phonemes\n";
}

Batch PronunciationData::pair_batch(
    const std::vector<std::pair<const DictionaryWord*, std::size_t>>& pairs) const {
  std::size_t src_len = 1, tgt_len = 1;
  for (const auto& [word, p] : pairs) {
    src_len = std::max(src_len, word->word.size());
    tgt_len = std::max(tgt_len, word->pronunciations.at(p).size() + 1);  // + <bos> / <eos>
  }
  const std::size_t n = pairs.size();
  // <pad> (id 0) everywhere the word or its pronunciation has ended: the padding masks hide it
  // from attention and the loss ignores it.
  Batch batch{TokenIds(xt::zeros<std::int32_t>({n, src_len})),
              TokenIds(xt::zeros<std::int32_t>({n, tgt_len})),
              TokenIds(xt::zeros<std::int32_t>({n, tgt_len}))};
  for (std::size_t b = 0; b < n; ++b) {
    const DictionaryWord& w = *pairs[b].first;
    for (std::size_t i = 0; i < w.word.size(); ++i)
      batch.src(b, i) = letters_.id(std::string(1, w.word[i]));
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

Batch PronunciationData::batch(WordSplit split, std::size_t first, std::size_t count) const {
  const auto& part = words(split);
  std::vector<std::pair<const DictionaryWord*, std::size_t>> pairs;
  for (std::size_t i = first; i < std::min(part.size(), first + count); ++i)
    pairs.emplace_back(&part[i], 0);
  if (pairs.empty())
    throw std::invalid_argument(std::string("no ") + word_split_name(split) + " word from " +
                                std::to_string(first));
  return pair_batch(pairs);
}

// [bucketed batches]
Batch PronunciationData::training_batch(std::size_t index, std::size_t batch_size,
                                        std::uint64_t seed) const {
  if (batch_size == 0 || batch_size > pairs_.size())
    throw std::invalid_argument("batch size must be from 1 to " + std::to_string(pairs_.size()) +
                                ", got " + std::to_string(batch_size));
  const std::size_t per_epoch = pairs_.size() / batch_size;
  const std::size_t epoch = index / per_epoch, position = index % per_epoch;
  // The plan of one epoch depends only on (seed, epoch); the last one made is kept.
  EpochPlan& plan = plan_;
  if (plan.batches.empty() || plan.seed != seed || plan.epoch != epoch ||
      plan.batch_size != batch_size) {
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
      const auto end =
          order.begin() + static_cast<std::ptrdiff_t>(std::min(order.size(), c + chunk));
      std::stable_sort(begin, end,
                       [&](std::size_t a, std::size_t b) { return length(a) < length(b); });
    }
    plan = EpochPlan{seed, epoch, batch_size, {}};
    for (std::size_t b = 0; b < per_epoch; ++b)
      plan.batches.emplace_back(order.begin() + static_cast<std::ptrdiff_t>(b * batch_size),
                                order.begin() + static_cast<std::ptrdiff_t>((b + 1) * batch_size));
    shuffle(plan.batches, rng);
  }
  const auto& train = parts_[static_cast<int>(WordSplit::kTrain)];
  std::vector<std::pair<const DictionaryWord*, std::size_t>> chosen;
  for (const std::size_t i : plan.batches[position])
    chosen.emplace_back(&train[pairs_[i].first], pairs_[i].second);
  return pair_batch(chosen);
}
// [bucketed batches]

TokenIds PronunciationData::encode_words(const std::vector<std::string>& words,
                                         std::size_t max_len) const {
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
        const std::vector<std::string> chars = tfm::utf8_characters(word.substr(i));
        throw std::invalid_argument("the word \"" + word + "\" has the character '" +
                                    chars.front() + "' at index " + std::to_string(i) +
                                    "; the model knows only the letters a-z");
      }
    }
    if (w.size() > max_len)
      throw std::invalid_argument("the word \"" + word + "\" has " + std::to_string(w.size()) +
                                  " letters but the model's positional table holds " +
                                  std::to_string(max_len));
    longest = std::max(longest, w.size());
    clean.push_back(w);
  }
  TokenIds src = xt::zeros<std::int32_t>({clean.size(), longest});
  for (std::size_t b = 0; b < clean.size(); ++b)
    for (std::size_t i = 0; i < clean[b].size(); ++i)
      src(b, i) = letters_.id(std::string(1, clean[b][i]));
  return src;
}

}  // namespace pronounce
