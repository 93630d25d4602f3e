#include "tfm/decode/incremental_decoding.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "tfm/core/no_grad.hpp"
#include "tfm/core/trace.hpp"

namespace tfm {

namespace {

constexpr trace::Component traced("MultiHeadAttention");
constexpr trace::Component traced_decoder("Decoder");
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

// cached [B, H, L, d] + fresh [B, H, n, d] -> [B, H, L + n, d]
Tensor4 append_positions(const Tensor4& cached, const Tensor4& fresh, const char* name) {
  if (cached.size() == 0) return fresh;
  require_shape("KeyValueCache", name, fresh,
                {cached.shape(0), cached.shape(1), kAnyExtent, cached.shape(3)},
                "(batch, heads, new_len, d_k)");
  const std::size_t B = cached.shape(0), H = cached.shape(1), d = cached.shape(3);
  const std::size_t L = cached.shape(2), n = fresh.shape(2);
  Tensor4 joined = Tensor4::from_shape({B, H, L + n, d});
  for (std::size_t bh = 0; bh < B * H; ++bh) {  // one [L + n, d] block per (batch, head)
    float* out = joined.data() + bh * (L + n) * d;
    const float* old_rows = cached.data() + bh * L * d;
    const float* new_rows = fresh.data() + bh * n * d;
    std::copy(old_rows, old_rows + L * d, out);
    std::copy(new_rows, new_rows + n * d, out + L * d);
  }
  return joined;
}

}  // namespace

void KeyValueCache::append(const Tensor4& new_keys, const Tensor4& new_values) {
  // keys [B, H, L, d_k] + new_keys [B, H, n, d_k] -> [B, H, L + n, d_k]; values likewise.
  // Growing by one copy per step keeps the layout ScaledDotProductAttention reads. (A
  // production decoder preallocates max_len rows instead; the copy costs about as much as the
  // attention reading the cache once, so the step stays O(L) either way.)
  require(new_keys.shape(2) == new_values.shape(2), "KeyValueCache",
          "keys " + shape_string(new_keys.shape()) + " and values " +
              shape_string(new_values.shape()) + " cover different numbers of positions");
  keys = append_positions(keys, new_keys, "new keys");
  values = append_positions(values, new_values, "new values");
}

void KeyValueCache::select_rows(const std::vector<std::size_t>& rows) {
  keys = select_batch_rows(keys, rows, "KeyValueCache");
  values = select_batch_rows(values, rows, "KeyValueCache");
}

void DecoderCache::select_rows(const std::vector<std::size_t>& rows) {
  for (DecoderLayerCache& layer : layers) {
    layer.self_attn.select_rows(rows);
    layer.cross_attn.select_rows(rows);
  }
  tokens = select_batch_rows(tokens, rows, "DecoderCache");
}

Tensor3 cached_attention(MultiHeadAttention& mha, const Tensor3& query_input,
                         const Tensor3* new_memory, KeyValueCache& cache, const Mask* mask) {
  // query_input [B, 1, d_model], new_memory [B, n, d_model] or none,
  // cache [B, H, L_old, d_k] -> [B, H, L, d_k] with L = L_old + n,
  // mask [B, 1, L] or none -> output [B, 1, d_model]
  const char* name = "MultiHeadAttention";
  NoGrad no_grad;  // inference: the layers keep nothing, what training kept stays
  require_shape(name, "query_input", query_input, {kAnyExtent, kAnyExtent, mha.d_model()},
                "(batch, len_q, d_model)");
  const std::size_t B = query_input.shape(0), Lq = query_input.shape(1), H = mha.n_heads();

  // Only the new rows go through W_K and W_V; earlier rows were projected at earlier steps.
  if (new_memory) {
    require_shape(name, "new_memory", *new_memory, {B, kAnyExtent, mha.d_model()},
                  "(batch, new_len, d_model)");
    cache.append(split_heads(mha.w_k.forward(*new_memory), H),
                 split_heads(mha.w_v.forward(*new_memory), H));
    traced(cache.keys, "append keys to the cache", "K", "batch, heads, cached_len, d_k");
    traced(cache.values, "append values to the cache", "V", "batch, heads, cached_len, d_v");
  }
  require(!cache.empty(), name, "step: the cache is empty and no new memory was given");
  require_shape(name, "cached keys", cache.keys, {B, H, kAnyExtent, mha.d_k()},
                "(batch, heads, cached_len, d_k)");
  if (mask)
    require_shape(name, "mask", *mask, {B, Lq, cache.length()}, "(batch, len_q, cached_len)");

  const Tensor4 q_heads =
      traced(split_heads(mha.w_q.forward(query_input), H), "project and split the new query", "Q",
             "batch, heads, len_q, d_k");
  Tensor4 context;
  {
    trace::Scope scope("ScaledDotProductAttention over the cache, all heads at once");
    context = ScaledDotProductAttention().forward(q_heads, cache.keys, cache.values, mask);
  }
  return traced(mha.w_o.forward(concat_heads(context)), "concat heads, output projection", "output",
                "batch, len_q, d_model");
}

Tensor3 cached_decoder_layer(DecoderLayer& layer, const Tensor3& x, const Tensor3& memory,
                             const Mask* self_mask, const Mask* cross_mask,
                             DecoderLayerCache& cache) {
  // x [B, 1, d], memory [B, S, d], self_mask [B, 1, t + 1], cross_mask [B, 1, S] -> [B, 1, d]
  // The same three blocks as DecoderLayer::forward, for one position. Add & Norm and the
  // feed-forward network work position by position, so only the two attentions need the cache.
  NoGrad no_grad;
  Tensor3 attended;
  {
    trace::Scope scope("masked self-attention over the cached positions");
    // The new position is both the query and the one new key/value row. No causal mask is
    // needed: the cache holds no future position.
    attended = cached_attention(layer.self_attn, x, &x, cache.self_attn, self_mask);
  }
  Tensor3 h1 = layer.norm1.forward(x, std::move(attended));
  Tensor3 crossed;
  {
    trace::Scope scope("cross-attention over the cached encoder output");
    // The encoder output does not change while decoding: project it at the first step only.
    const Tensor3* new_memory = cache.cross_attn.empty() ? &memory : nullptr;
    crossed = cached_attention(layer.cross_attn, h1, new_memory, cache.cross_attn, cross_mask);
  }
  Tensor3 h2 = layer.norm2.forward(h1, std::move(crossed));
  Tensor3 transformed;
  {
    trace::Scope scope("feed-forward");
    transformed = layer.ffn.forward(h2);
  }
  return layer.norm3.forward(h2, std::move(transformed));
}

// [cached decoder]
Tensor3 cached_decoder(Decoder& decoder, const TokenIds& last, std::size_t position,
                       const Tensor3& memory, const Mask* cross_mask, DecoderCache& cache) {
  // last [B, 1], memory [B, S, d], cross_mask [B, 1, S] -> hidden [B, 1, d]
  const char* name = "Decoder step";
  NoGrad no_grad;
  require(!decoder.training(), name, "decoding is inference: call set_training(false) first");
  require_shape(name, "last", last, {kAnyExtent, 1}, "(batch, 1)");
  const std::size_t B = last.shape(0);
  require(position == cache.length(), name,
          "position " + std::to_string(position) + " given, but the cache holds " +
              std::to_string(cache.length()) + " positions: step t feeds the token at position t");
  require(
      cache.length() == 0 || cache.tokens.shape(0) == B, name,
      "last has batch " + std::to_string(B) + ", the cache " + shape_string(cache.tokens.shape()));
  if (cache.layers.empty()) cache.layers.resize(decoder.layers.size());
  require(cache.layers.size() == decoder.layers.size(), name,
          "the cache has " + std::to_string(cache.layers.size()) + " layers, the decoder " +
              std::to_string(decoder.layers.size()));

  // Remember the token: the self-attention mask below blocks the <pad> positions, as
  // decoder_self_mask() does for a whole prefix.
  cache.tokens = append_column(cache.tokens, last);

  // The new token is at `position`, so it gets that row of the table. Adding row 0 at every
  // step (reference 002's bug) would make every token look like the first one.
  Tensor3 x = decoder.embedding().forward(last);
  decoder.positional_encoding().add_to(x, position);
  traced_decoder(x, "embedding + positions (dropout is off)", "x", "batch, 1, d_model");
  // The query sees every position fed so far, except <pad>: [B, 1, position + 1]. No causal
  // part: the future is not in the cache.
  const Mask self_mask = padding_mask(cache.tokens, 1);
  for (std::size_t i = 0; i < decoder.layers.size(); ++i) {
    trace::Scope layer_scope("decoder layer " + std::to_string(i) + ", one step");
    x = cached_decoder_layer(decoder.layers[i], x, memory, &self_mask, cross_mask, cache.layers[i]);
  }
  return x;
}
// [cached decoder]

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

Tensor3 next_token_logits(Transformer& model, const TokenIds& src, const Tensor3& memory,
                          const TokenIds& last, std::size_t position, DecoderCache& cache) {
  // src [B, S], memory [B, S, d_model], last [B, 1] -> logits [B, 1, tgt_vocab]
  NoGrad no_grad;
  trace::Scope scope("step (position " + std::to_string(position) + ")");
  require(src.shape(0) == last.shape(0), "step",
          "source " + shape_string(src.shape()) + " and last token " + shape_string(last.shape()) +
              " have different batch sizes");
  const Mask cross_mask = padding_mask(src, 1);  // one query position
  const Tensor3 hidden = cached_decoder(model.decoder, last, position, memory, &cross_mask, cache);
  Tensor3 logits = model.generator.forward(hidden);
  traced_transformer(logits, "project to the vocabulary", "logits", "batch, 1, tgt_vocab");
  return logits;
}

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
