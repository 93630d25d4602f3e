#include "tfm/tasks/toy_translation.hpp"

#include <numeric>
#include <utility>

#include "tfm/core/trace.hpp"

namespace tfm {
namespace {

// [toy data]
// nlp-tutorial's sentences without its P/S/E markers, and its vocabularies without P, S, E
// (they become the reserved <pad>, <bos>, <eos>); the word order is nlp-tutorial's.
std::vector<SentencePair> reference_pairs() {
  return {{"ich mochte ein bier", "i want a beer ."},  //
          {"ich mochte ein cola", "i want a coke ."}};
}
Vocabulary reference_source_vocabulary() {
  return Vocabulary(Tokenization::kWords, {"ich", "mochte", "ein", "bier", "cola"});
}
Vocabulary reference_target_vocabulary() {
  return Vocabulary(Tokenization::kWords, {"i", "want", "a", "beer", "coke", "."});
}
// [toy data]

}  // namespace

ToyTranslation::ToyTranslation()
    : ToyTranslation(reference_pairs(), reference_source_vocabulary(),
                     reference_target_vocabulary(), /*src_len=*/5, /*tgt_len=*/6) {}

ToyTranslation::ToyTranslation(std::vector<SentencePair> pairs, Vocabulary source_vocabulary,
                               Vocabulary target_vocabulary, std::size_t src_len,
                               std::size_t tgt_len)
    : pairs_(std::move(pairs)),
      source_vocabulary_(std::move(source_vocabulary)),
      target_vocabulary_(std::move(target_vocabulary)),
      src_len_(src_len),
      tgt_len_(tgt_len) {
  require(!pairs_.empty(), "ToyTranslation", "no sentence pairs");
  // Encode everything once, so that a word missing from a vocabulary is reported here.
  for (const SentencePair& p : pairs_) {
    const std::size_t n_src = source_vocabulary_.encode(p.source, OnUnknown::kThrow).size();
    const std::size_t n_tgt = target_vocabulary_.encode(p.target, OnUnknown::kThrow).size();
    require(n_src <= src_len_, "ToyTranslation",
            "source \"" + p.source + "\" has " + std::to_string(n_src) +
                " words, more than src_len = " + std::to_string(src_len_));
    require(n_tgt + 1 <= tgt_len_, "ToyTranslation",
            "target \"" + p.target + "\" has " + std::to_string(n_tgt) +
                " words; with <bos>/<eos> that is more than tgt_len = " + std::to_string(tgt_len_));
  }
}

// [toy batch]
Batch ToyTranslation::batch(const std::vector<std::size_t>& indices) const {
  // -> src [n, src_len], tgt_in [n, tgt_len], tgt_out [n, tgt_len], padded with <pad> = 0.
  const std::size_t n = indices.size();
  Batch batch{TokenIds(xt::zeros<std::int32_t>({n, src_len_})),
              TokenIds(xt::zeros<std::int32_t>({n, tgt_len_})),
              TokenIds(xt::zeros<std::int32_t>({n, tgt_len_}))};
  static_assert(kPadId == 0, "the tensors above start out as padding");
  for (std::size_t b = 0; b < n; ++b) {
    const SentencePair& p = pairs_.at(indices[b]);
    const std::vector<std::int32_t> src = source_vocabulary_.encode(p.source, OnUnknown::kThrow);
    const std::vector<std::int32_t> tgt = target_vocabulary_.encode(p.target, OnUnknown::kThrow);
    for (std::size_t t = 0; t < src.size(); ++t) batch.src(b, t) = src[t];
    // Teacher forcing: the decoder reads <bos> y1 .. yn and must predict y1 .. yn <eos>.
    batch.tgt_in(b, 0) = kBosId;
    for (std::size_t t = 0; t < tgt.size(); ++t) {
      batch.tgt_in(b, t + 1) = tgt[t];
      batch.tgt_out(b, t) = tgt[t];
    }
    batch.tgt_out(b, tgt.size()) = kEosId;
  }
  trace_batch("ToyTranslation", batch);
  return batch;
}
// [toy batch]

Batch ToyTranslation::all() const {
  std::vector<std::size_t> indices(pairs_.size());
  std::iota(indices.begin(), indices.end(), std::size_t{0});
  return batch(indices);
}

}  // namespace tfm
