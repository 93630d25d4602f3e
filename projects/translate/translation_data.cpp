#include "translate/translation_data.hpp"

#include <algorithm>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "tfm/core/random.hpp"

namespace translate {
namespace {

// Fisher-Yates from the project's seeded generator: the same order on every machine.
template <typename T>
void shuffle(std::vector<T>& items, tfm::Rng& rng) {
  for (std::size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[rng.next_u64() % i]);
}

// Columns a pair needs: its source, and its target with `<bos>` (decoder input) or `<eos>` (labels).
std::size_t columns(const EncodedPair& p) {
  return std::max(p.source.size(), p.target.size() + 1);
}

constexpr std::size_t kChunk = 2000;  // pairs sorted by length together

}  // namespace

const char* direction_name(Direction direction) {
  return direction == Direction::kSpanishToEnglish ? "es-en" : "en-es";
}

Direction parse_direction(const std::string& name) {
  if (name == "es-en") return Direction::kSpanishToEnglish;
  if (name == "en-es") return Direction::kEnglishToSpanish;
  throw std::invalid_argument("the direction must be es-en or en-es, got '" + name + "'");
}

namespace {
Bpe learn_tokenizer(const SplitVerses& parts, std::size_t symbols) {
  std::vector<std::string> texts;
  for (const ParallelVerse& v : parts[static_cast<int>(Part::kTrain)]) {
    texts.push_back(v.spanish);
    texts.push_back(v.english);
  }
  return Bpe::learn(texts, symbols);
}
}  // namespace

TranslationData::TranslationData(SplitVerses parts, Direction direction, std::size_t symbols,
                                 std::size_t longest)
    : TranslationData(parts, direction, learn_tokenizer(parts, symbols), longest) {}

TranslationData::TranslationData(SplitVerses parts, Direction direction, Bpe tokenizer,
                                 std::size_t longest)
    : parts_(std::move(parts)),
      direction_(direction),
      tokenizer_(std::move(tokenizer)),
      vocabulary_(tfm::Tokenization::kWords, tokenizer_.symbols()) {
  if (parts_[static_cast<int>(Part::kTrain)].empty())
    throw std::invalid_argument("no training verses");
  encode_all(longest);
}

const std::string& TranslationData::source_text(const ParallelVerse& verse) const {
  return direction_ == Direction::kSpanishToEnglish ? verse.spanish : verse.english;
}
const std::string& TranslationData::target_text(const ParallelVerse& verse) const {
  return direction_ == Direction::kSpanishToEnglish ? verse.english : verse.spanish;
}

std::vector<std::int32_t> TranslationData::encode(const std::string& text) const {
  std::vector<std::int32_t> ids;
  for (const std::string& piece : tokenizer_.encode(text))
    ids.push_back(vocabulary_.contains(piece) ? vocabulary_.id(piece) : tfm::kUnkId);
  return ids;
}

void TranslationData::encode_all(std::size_t longest) {
  longest_ = longest;
  for (int p = 0; p < 4; ++p) {
    const auto& verses = parts_[p];
    for (std::size_t i = 0; i < verses.size(); ++i) {
      EncodedPair pair{encode(source_text(verses[i])), encode(target_text(verses[i]))};
      if (static_cast<Part>(p) == Part::kTrain) {
        if (pair.source.size() > longest || pair.target.size() > longest || pair.source.empty() ||
            pair.target.empty()) {
          ++too_long_;
          continue;
        }
        training_verse_.push_back(i);
      }
      longest_tokens_ = std::max({longest_tokens_, pair.source.size(), pair.target.size()});
      encoded_[p].push_back(std::move(pair));
    }
  }
}

// [length-bucketed batches]
TranslationData::EpochPlan TranslationData::plan_epoch(std::uint64_t seed, std::size_t epoch,
                                                       std::size_t batch_tokens) const {
  const auto& train = pairs(Part::kTrain);
  tfm::Rng rng(seed * 0x9E3779B97F4A7C15ull + epoch + 1);
  std::vector<std::size_t> order(train.size());
  std::iota(order.begin(), order.end(), 0);
  shuffle(order, rng);
  EpochPlan plan{seed, epoch, batch_tokens, 0, {}};
  for (std::size_t c = 0; c < order.size(); c += kChunk) {
    const auto begin = order.begin() + static_cast<long>(c);
    const auto end = order.begin() + static_cast<long>(std::min(order.size(), c + kChunk));
    std::stable_sort(begin, end, [&](std::size_t a, std::size_t b) {
      return columns(train[a]) < columns(train[b]);
    });
    // Rows are added while rows x the longest row (padding included) fits in batch_tokens.
    std::vector<std::size_t> batch;
    std::size_t widest = 0;
    for (auto it = begin; it != end; ++it) {
      const std::size_t width = std::max(widest, columns(train[*it]));
      if (!batch.empty() && (batch.size() + 1) * width > batch_tokens) {
        plan.batches.push_back(std::move(batch));
        batch.clear();
        widest = 0;
      }
      batch.push_back(*it);
      widest = std::max(widest, columns(train[*it]));
    }
    if (!batch.empty()) plan.batches.push_back(std::move(batch));
  }
  shuffle(plan.batches, rng);
  return plan;
}

tfm::Batch TranslationData::training_batch(std::size_t index, std::size_t batch_tokens,
                                           std::uint64_t seed) const {
  if (batch_tokens < longest_ + 1)
    throw std::invalid_argument("a batch of " + std::to_string(batch_tokens) +
                                " tokens cannot hold a pair of " + std::to_string(longest_) +
                                " tokens (+ <bos>/<eos>)");
  if (epoch_starts_.empty() || starts_seed_ != seed || starts_tokens_ != batch_tokens) {
    epoch_starts_ = {0};
    starts_seed_ = seed;
    starts_tokens_ = batch_tokens;
    plan_ = EpochPlan{};
  }
  // Epochs hold different numbers of batches: plan them in turn until one holds `index`
  // (epoch_starts_[e] is the index of epoch e's first batch; its last entry ends the last plan).
  while (index >= epoch_starts_.back()) {
    const std::size_t epoch = epoch_starts_.size() - 1;
    plan_ = plan_epoch(seed, epoch, batch_tokens);
    plan_.first_index = epoch_starts_.back();
    epoch_starts_.push_back(plan_.first_index + plan_.batches.size());
  }
  const std::size_t epoch =
      static_cast<std::size_t>(std::upper_bound(epoch_starts_.begin(), epoch_starts_.end(), index) -
                               epoch_starts_.begin()) -
      1;
  if (plan_.batches.empty() || plan_.epoch != epoch) {
    plan_ = plan_epoch(seed, epoch, batch_tokens);
    plan_.first_index = epoch_starts_[epoch];
  }
  return batch(Part::kTrain, plan_.batches[index - plan_.first_index]);
}
// [length-bucketed batches]

tfm::Batch TranslationData::batch(Part part, const std::vector<std::size_t>& indices) const {
  const auto& all = pairs(part);
  std::size_t src_len = 1, tgt_len = 1;
  for (const std::size_t i : indices) {
    src_len = std::max(src_len, all.at(i).source.size());
    tgt_len = std::max(tgt_len, all.at(i).target.size() + 1);  // + <bos> / <eos>
  }
  const std::size_t n = indices.size();
  // <pad> (id 0) wherever a verse has ended: the masks hide it from attention, the loss ignores it.
  tfm::Batch b{tfm::TokenIds(xt::zeros<std::int32_t>({n, src_len})),
               tfm::TokenIds(xt::zeros<std::int32_t>({n, tgt_len})),
               tfm::TokenIds(xt::zeros<std::int32_t>({n, tgt_len}))};
  for (std::size_t r = 0; r < n; ++r) {
    const EncodedPair& p = all[indices[r]];
    for (std::size_t i = 0; i < p.source.size(); ++i) b.src(r, i) = p.source[i];
    b.tgt_in(r, 0) = tfm::kBosId;
    for (std::size_t i = 0; i < p.target.size(); ++i) {
      b.tgt_in(r, i + 1) = p.target[i];
      b.tgt_out(r, i) = p.target[i];
    }
    b.tgt_out(r, p.target.size()) = tfm::kEosId;
  }
  return b;
}

std::vector<tfm::Batch> TranslationData::batches(Part part, std::size_t batch_tokens) const {
  const auto& all = pairs(part);
  std::vector<std::size_t> order(all.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return columns(all[a]) < columns(all[b]); });
  std::vector<tfm::Batch> out;
  std::vector<std::size_t> rows;
  for (const std::size_t i : order) {
    if (!rows.empty() && (rows.size() + 1) * columns(all[i]) > batch_tokens) {
      out.push_back(batch(part, rows));
      rows.clear();
    }
    rows.push_back(i);
  }
  if (!rows.empty()) out.push_back(batch(part, rows));
  return out;
}

tfm::TokenIds TranslationData::encode_sources(const std::vector<std::string>& texts) const {
  std::vector<std::vector<std::int32_t>> rows;
  std::size_t longest = 1;
  for (std::size_t t = 0; t < texts.size(); ++t) {
    rows.push_back(encode(texts[t]));
    if (rows.back().empty())
      throw std::invalid_argument("text " + std::to_string(t + 1) + " has nothing to translate");
    longest = std::max(longest, rows.back().size());
  }
  tfm::TokenIds ids = xt::zeros<std::int32_t>({texts.size(), longest});
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (std::size_t i = 0; i < rows[r].size(); ++i) ids(r, i) = rows[r][i];
  return ids;
}

std::string TranslationData::decode(const std::vector<std::int32_t>& ids) const {
  std::vector<std::string> pieces;
  for (const std::int32_t id : ids) {
    if (id == tfm::kEosId || id == tfm::kPadId) break;
    if (id == tfm::kBosId) continue;
    pieces.push_back(vocabulary_.symbol(id));
  }
  return Bpe::decode(pieces);
}

std::string TranslationData::summary() const {
  std::ostringstream out;
  out << "verse pairs: " << verses(Part::kTrain).size() << " train (" << too_long_
      << " of them longer than " << longest_ << " subwords, left out of training), "
      << verses(Part::kDev).size() << " dev, " << verses(Part::kTest).size() << " test, "
      << verses(Part::kHeldOutBook).size() << " in " << kHeldOutBook
      << " (held out)\nsubwords: " << vocabulary_.size() << " ids ("
      << tokenizer_.characters().size() << " characters, " << tokenizer_.merges().size()
      << " merges, 4 reserved), learnt on the training verses of both languages; "
      << "longest verse " << longest_tokens_ << " subwords";
  return out.str();
}

}  // namespace translate
