#include "tfm/decode/incremental_decoding.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "tfm/core/no_grad.hpp"
#include "tfm/core/trace.hpp"

namespace tfm {

namespace {

constexpr trace::Component traced_transformer("Transformer");

// Row rows[i] of x becomes row i: x [B, ...] -> [rows.size(), ...]. An empty x stays empty.
template <class Tensor>
Tensor select_batch_rows(const Tensor& x, const std::vector<std::size_t>& rows, const char* who) {
  if (x.size() == 0) return x;
  auto shape = x.shape();
  const std::size_t row_size = x.size() / shape[0];
  shape[0] = rows.size();
  Tensor out = Tensor::from_shape(shape);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    require(rows[i] < x.shape(0), who,
            "row " + std::to_string(rows[i]) + " selected from a batch of " +
                std::to_string(x.shape(0)));
    std::copy(x.data() + rows[i] * row_size, x.data() + (rows[i] + 1) * row_size,
              out.data() + i * row_size);
  }
  return out;
}

// prefix [B, t], last [B, 1] -> [B, t + 1].
TokenIds append_column(const TokenIds& prefix, const TokenIds& last) {
  const std::size_t B = last.shape(0), t = prefix.size() == 0 ? 0 : prefix.shape(1);
  TokenIds out = TokenIds::from_shape({B, t + 1});
  for (std::size_t b = 0; b < B; ++b) {
    for (std::size_t j = 0; j < t; ++j) out(b, j) = prefix(b, j);
    out(b, t) = last(b, 0);
  }
  return out;
}

}  // namespace

void select_rows(KeyValueCache& cache, const std::vector<std::size_t>& rows) {
  cache.keys = select_batch_rows(cache.keys, rows, "KeyValueCache");
  cache.values = select_batch_rows(cache.values, rows, "KeyValueCache");
}

void DecoderCache::select_rows(const std::vector<std::size_t>& rows) {
  for (DecoderLayerCache& layer : layers) {
    tfm::select_rows(layer.self_attn, rows);
    tfm::select_rows(layer.cross_attn, rows);
  }
  tokens = select_batch_rows(tokens, rows, "DecoderCache");
}

Tensor3 encode(Transformer& model, const TokenIds& src) {
  // src [B, S] -> memory [B, S, d_model]
  NoGrad no_grad;
  trace::Scope scope("encode");
  traced_transformer(src, "source tokens", "src", "batch, src_len");
  const Mask source_mask = padding_mask(src, src.shape(1));
  return model.encoder.forward(src, &source_mask);
}

Tensor3 decoder_logits(Transformer& model, const TokenIds& src, const Tensor3& memory,
                       const TokenIds& tgt_in) {
  // src [B, S], memory [B, S, d_model], tgt_in [B, T] -> logits [B, T, tgt_vocab]
  NoGrad no_grad;
  trace::Scope scope("decode (the whole prefix)");
  require(src.shape(0) == tgt_in.shape(0), "decode",
          "source " + shape_string(src.shape()) + " and target " + shape_string(tgt_in.shape()) +
              " have different batch sizes");
  const Mask target_mask = decoder_self_mask(tgt_in);
  const Mask cross_mask = padding_mask(src, tgt_in.shape(1));
  const Tensor3 hidden = model.decoder.forward(tgt_in, memory, &target_mask, &cross_mask);
  Tensor3 logits = model.generator.forward(hidden);
  traced_transformer(logits, "project to the vocabulary", "logits", "batch, tgt_len, tgt_vocab");
  return logits;
}

// [cached step]
Tensor3 next_token_logits(Transformer& model, const TokenIds& src, const Tensor3& memory,
                          const TokenIds& last, std::size_t position, DecoderCache& cache) {
  // src [B, S], memory [B, S, d_model], last [B, 1] -> logits [B, 1, tgt_vocab]
  const char* name = "step";
  NoGrad no_grad;  // inference: the layers keep nothing, what training kept stays
  trace::Scope scope("step (position " + std::to_string(position) + ")");
  require(!model.decoder.training(), name, "decoding is inference: call set_training(false) first");
  require_shape(name, "last", last, {kAnyExtent, 1}, "(batch, 1)");
  require(src.shape(0) == last.shape(0), name,
          "source " + shape_string(src.shape()) + " and last token " + shape_string(last.shape()) +
              " have different batch sizes");
  require(position == cache.length(), name,
          "position " + std::to_string(position) + " given, but the cache holds " +
              std::to_string(cache.length()) + " positions: step t feeds the token at position t");
  require(cache.length() == 0 || cache.tokens.shape(0) == last.shape(0), name,
          "last has batch " + std::to_string(last.shape(0)) + ", the cache " +
              shape_string(cache.tokens.shape()));

  // Remember the token: the self-attention mask blocks the <pad> positions, as
  // decoder_self_mask() does for a whole prefix.
  cache.tokens = append_column(cache.tokens, last);
  // The newest position sees every position fed so far, except <pad>: [B, 1, position + 1]. No
  // causal part: the future is not in the cache.
  const Mask self_mask = padding_mask(cache.tokens, 1);
  const Mask cross_mask = padding_mask(src, 1);  // one query position
  // The decoder's own forward, fed the newest token only: it gives the token the encoding of
  // its position, and every attention reads the earlier keys and values from the cache.
  const Tensor3 hidden =
      model.decoder.forward(last, memory, &self_mask, &cross_mask, &cache.layers);
  Tensor3 logits = model.generator.forward(hidden);
  traced_transformer(logits, "project to the vocabulary", "logits", "batch, 1, tgt_vocab");
  return logits;
}
// [cached step]

IncrementalDecoder::IncrementalDecoder(Transformer& model, const TokenIds& src, bool cached)
    : model_(model), cached_(cached), src_(src) {
  require(
      !model.training(), "IncrementalDecoder",
      "decoding is inference: switch dropout off first (set_training(false) or EvaluationMode)");
  memory_ = encode(model_, src_);
}

Tensor3 IncrementalDecoder::next_logits(const TokenIds& last) {
  // last [B, 1] (the token at position t) -> logits [B, 1, V] (for position t + 1)
  Tensor3 logits;
  if (cached_) {
    // The newest token only; every earlier position is in the cache.
    logits = next_token_logits(model_, src_, memory_, last, position_, cache_);
  } else {
    // The obvious way: run the decoder on the whole prefix and keep its last position.
    prefix_ = append_column(prefix_, last);
    const Tensor3 all = decoder_logits(model_, src_, memory_, prefix_);  // [B, t + 1, V]
    const std::size_t B = all.shape(0), T = all.shape(1), V = all.shape(2);
    logits = Tensor3::from_shape({B, 1, V});
    for (std::size_t b = 0; b < B; ++b)
      std::copy(all.data() + (b * T + T - 1) * V, all.data() + (b * T + T) * V,
                logits.data() + b * V);
  }
  ++position_;
  return logits;
}

void IncrementalDecoder::select_rows(const std::vector<std::size_t>& rows) {
  src_ = select_batch_rows(src_, rows, "IncrementalDecoder");
  memory_ = select_batch_rows(memory_, rows, "IncrementalDecoder");
  prefix_ = select_batch_rows(prefix_, rows, "IncrementalDecoder");
  cache_.select_rows(rows);
}

}  // namespace tfm
