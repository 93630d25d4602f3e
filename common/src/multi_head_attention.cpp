#include "tfm/multi_head_attention.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>

#include "tfm/trace.hpp"

namespace tfm {

namespace {

constexpr const char* kName = "MultiHeadAttention";

// The constructor's check, run before the first Linear draws its weights.
std::size_t checked_d_model(std::size_t d_model, std::size_t n_heads) {
  if (n_heads == 0 || d_model % n_heads != 0) {
    throw std::invalid_argument("MultiHeadAttention: d_model (" + std::to_string(d_model) +
                                ") must be a positive multiple of n_heads (" +
                                std::to_string(n_heads) +
                                ") so that every head gets d_k = d_model / n_heads columns");
  }
  return d_model;
}

}  // namespace

// [split heads]
Tensor4 split_heads(const Tensor3& x, std::size_t n_heads) {
  // x [B, L, H * d_k] -> [B, H, L, d_k]: head h of position l is columns h*d_k .. (h+1)*d_k - 1
  // of row l. Each head becomes one contiguous [L, d_k] matrix, ready for gemm.
  const std::size_t B = x.shape(0), L = x.shape(1), d = x.shape(2);
  require(n_heads > 0 && d % n_heads == 0, "split_heads",
          "last axis of " + shape_string(x.shape()) + " is not divisible into " +
              std::to_string(n_heads) + " heads");
  const std::size_t d_k = d / n_heads;
  Tensor4 heads = Tensor4::from_shape({B, n_heads, L, d_k});
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t l = 0; l < L; ++l) {
      const float* row = x.data() + (b * L + l) * d;
      for (std::size_t h = 0; h < n_heads; ++h)
        std::copy(row + h * d_k, row + (h + 1) * d_k,
                  heads.data() + ((b * n_heads + h) * L + l) * d_k);
    }
  return heads;
}

Tensor3 concat_heads(const Tensor4& x) {
  // x [B, H, L, d_k] -> [B, L, H * d_k]: the exact inverse of split_heads.
  const std::size_t B = x.shape(0), H = x.shape(1), L = x.shape(2), d_k = x.shape(3);
  Tensor3 joined = Tensor3::from_shape({B, L, H * d_k});
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t l = 0; l < L; ++l) {
        const float* head_row = x.data() + ((b * H + h) * L + l) * d_k;
        std::copy(head_row, head_row + d_k, joined.data() + (b * L + l) * H * d_k + h * d_k);
      }
  return joined;
}
// [split heads]

MultiHeadAttention::MultiHeadAttention(std::size_t d_model, std::size_t n_heads, bool bias,
                                       Rng& rng)
    : w_q(checked_d_model(d_model, n_heads), d_model, bias, rng),
      w_k(d_model, d_model, bias, rng),
      w_v(d_model, d_model, bias, rng),
      w_o(d_model, d_model, bias, rng),
      d_model_(d_model),
      n_heads_(n_heads) {}

// [mha forward]
Tensor3 MultiHeadAttention::forward(const Tensor3& query_input, const Tensor3& memory,
                                    const Mask* mask) {
  // query_input [B, Lq, d_model], memory [B, Lk, d_model], mask [B, Lq, Lk] -> [B, Lq, d_model]
  require_shape(kName, "query_input", query_input, {kAnyExtent, kAnyExtent, d_model_},
                "(batch, len_q, d_model)");
  require_shape(kName, "memory", memory, {kAnyExtent, kAnyExtent, d_model_},
                "(batch, len_k, d_model)");
  require(query_input.shape(0) == memory.shape(0), kName,
          "batch sizes differ: query_input " + shape_string(query_input.shape()) + ", memory " +
              shape_string(memory.shape()));
  const std::size_t B = query_input.shape(0), Lq = query_input.shape(1), Lk = memory.shape(1);
  if (mask) require_shape(kName, "mask", *mask, {B, Lq, Lk}, "(batch, len_q, len_k)");
  has_forward_ = true;
  batch_ = B;
  len_q_ = Lq;

  // W_Q, W_K and W_V each keep their input for backward. Cross-attention gives W_K and W_V the
  // same memory, self-attention gives all three the same tensor: one kept copy serves them all.
  const auto kept_memory = std::make_shared<const Tensor3>(memory);
  const auto kept_query_input =
      &query_input == &memory ? kept_memory : std::make_shared<const Tensor3>(query_input);

  // One [d_model, d_model] product projects every head at once.
  const Tensor3 q = w_q.forward(kept_query_input);
  trace::step(kName, "project queries", "Q", q, "batch, len_q, d_model");
  const Tensor3 k = w_k.forward(kept_memory);
  trace::step(kName, "project keys", "K", k, "batch, len_k, d_model");
  const Tensor3 v = w_v.forward(kept_memory);
  trace::step(kName, "project values", "V", v, "batch, len_k, d_model");

  // Head h owns columns h*d_k .. (h+1)*d_k - 1 of each projection.
  const Tensor4 q_heads = split_heads(q, n_heads_);
  trace::step(kName, "split heads", "Q", q_heads, "batch, heads, len_q, d_k");
  const Tensor4 k_heads = split_heads(k, n_heads_);
  trace::step(kName, "split heads", "K", k_heads, "batch, heads, len_k, d_k");
  const Tensor4 v_heads = split_heads(v, n_heads_);
  trace::step(kName, "split heads", "V", v_heads, "batch, heads, len_k, d_v");

  // Every head attends independently, with its own d_k-wide queries, keys and values; the mask
  // is the same for all heads.
  Tensor4 context;
  {
    trace::Scope scope("ScaledDotProductAttention, all heads at once");
    context = attention_.forward(q_heads, k_heads, v_heads, mask);
  }

  const Tensor3 joined = concat_heads(context);
  trace::step(kName, "concat heads", "concat", joined, "batch, len_q, heads * d_v");
  // W_O mixes the heads: without it each output column would come from a single head.
  Tensor3 output = w_o.forward(joined);
  trace::step(kName, "output projection", "output", output, "batch, len_q, d_model");
  return output;
}
// [mha forward]

// [mha backward]
MultiHeadAttention::Grads MultiHeadAttention::backward(const Tensor3& d_output) {
  // d_output [B, Lq, d_model] -> query_input [B, Lq, d_model], memory [B, Lk, d_model]
  // Forward, step by step, and the backward of each step, run in reverse order:
  //   output = concat W_Oᵀ (+ b_O)        ->  d_concat = d_output W_O        (Linear backward)
  //   concat = concat_heads(C)            ->  dC = split_heads(d_concat)     (the inverse copy)
  //   C = Attention(Qh, Kh, Vh)           ->  dQh, dKh, dVh                  (chapter 05)
  //   Qh = split_heads(Q), likewise K, V  ->  dQ = concat_heads(dQh), ...
  //   Q = query_input W_Qᵀ                ->  d_query_input = dQ W_Q
  //   K = memory W_Kᵀ, V = memory W_Vᵀ    ->  d_memory = dK W_K + dV W_V     (memory feeds both)
  // Each Linear backward also accumulates its own dW = dyᵀ x and db = Σ dy.
  require(has_forward_, kName, "backward called before forward");
  require_shape(std::string(kName) + " backward", "d_output", d_output, {batch_, len_q_, d_model_},
                "(batch, len_q, d_model)");
  const Tensor3 d_concat = w_o.backward(d_output);
  trace::step(kName, "backward W_O", "d_concat", d_concat, "batch, len_q, d_model");
  const Tensor4 d_context = split_heads(d_concat, n_heads_);
  trace::step(kName, "backward concat", "d_context", d_context, "batch, heads, len_q, d_v");

  ScaledDotProductAttention::Grads d_heads;
  {
    trace::Scope scope("ScaledDotProductAttention backward");
    d_heads = attention_.backward(d_context);
  }

  const Tensor3 dq = concat_heads(d_heads.q);
  trace::step(kName, "backward split", "dQ", dq, "batch, len_q, d_model");
  const Tensor3 dk = concat_heads(d_heads.k);
  trace::step(kName, "backward split", "dK", dk, "batch, len_k, d_model");
  const Tensor3 dv = concat_heads(d_heads.v);
  trace::step(kName, "backward split", "dV", dv, "batch, len_k, d_model");

  Grads grads;
  grads.query_input = w_q.backward(dq);
  trace::step(kName, "backward W_Q", "d_query_input", grads.query_input, "batch, len_q, d_model");
  grads.memory = w_k.backward(dk);
  const Tensor3 d_memory_from_values = w_v.backward(dv);
  grads.memory += d_memory_from_values;
  trace::step(kName, "backward W_K, W_V", "d_memory", grads.memory, "batch, len_k, d_model");
  return grads;
}
// [mha backward]

// [kv cache]
void KeyValueCache::append(const Tensor4& new_keys, const Tensor4& new_values) {
  // keys [B, H, L, d_k] + new_keys [B, H, n, d_k] -> [B, H, L + n, d_k]; values likewise.
  // Growing by one copy per step keeps the layout ScaledDotProductAttention reads. (A
  // production decoder preallocates max_len rows instead; the copy costs about as much as the
  // attention reading the cache once, so the step stays O(L) either way.)
  const auto concatenate = [](const Tensor4& cached, const Tensor4& fresh, const char* name) {
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
  };
  require(new_keys.shape(2) == new_values.shape(2), "KeyValueCache",
          "keys " + shape_string(new_keys.shape()) + " and values " +
              shape_string(new_values.shape()) + " cover different numbers of positions");
  keys = concatenate(keys, new_keys, "new keys");
  values = concatenate(values, new_values, "new values");
}
// [kv cache]

void KeyValueCache::select_rows(const std::vector<std::size_t>& rows) {
  // keys [B, H, L, d_k] -> [rows.size(), H, L, d_k]: row i is the old row rows[i].
  const auto select = [&rows](const Tensor4& x) {
    const std::size_t row_size = x.size() / x.shape(0);
    Tensor4 out = Tensor4::from_shape({rows.size(), x.shape(1), x.shape(2), x.shape(3)});
    for (std::size_t i = 0; i < rows.size(); ++i) {
      require(rows[i] < x.shape(0), "KeyValueCache",
              "row " + std::to_string(rows[i]) + " selected from a batch of " +
                  std::to_string(x.shape(0)));
      std::copy(x.data() + rows[i] * row_size, x.data() + (rows[i] + 1) * row_size,
                out.data() + i * row_size);
    }
    return out;
  };
  if (empty()) return;
  keys = select(keys);
  values = select(values);
}

// [mha forward cached]
Tensor3 MultiHeadAttention::forward_cached(const Tensor3& query_input, const Tensor3* new_memory,
                                           KeyValueCache& cache, const Mask* mask) {
  // query_input [B, 1, d_model], new_memory [B, n, d_model] or none,
  // cache [B, H, L_old, d_k] -> [B, H, L, d_k] with L = L_old + n,
  // mask [B, 1, L] or none -> output [B, 1, d_model]
  require_shape(kName, "query_input", query_input, {kAnyExtent, kAnyExtent, d_model_},
                "(batch, len_q, d_model)");
  const std::size_t B = query_input.shape(0), Lq = query_input.shape(1);
  has_forward_ = false;  // a step keeps nothing for backward: backward must follow forward()

  // Only the new rows go through W_K and W_V; earlier rows were projected at earlier steps.
  if (new_memory) {
    require_shape(kName, "new_memory", *new_memory, {B, kAnyExtent, d_model_},
                  "(batch, new_len, d_model)");
    const Tensor4 new_keys = split_heads(w_k.forward(*new_memory), n_heads_);
    const Tensor4 new_values = split_heads(w_v.forward(*new_memory), n_heads_);
    cache.append(new_keys, new_values);
    trace::step(kName, "append keys to the cache", "K", cache.keys,
                "batch, heads, cached_len, d_k");
    trace::step(kName, "append values to the cache", "V", cache.values,
                "batch, heads, cached_len, d_v");
  }
  require(!cache.empty(), kName, "forward_cached: the cache is empty and no new memory was given");
  require_shape(kName, "cached keys", cache.keys, {B, n_heads_, kAnyExtent, d_k()},
                "(batch, heads, cached_len, d_k)");
  if (mask)
    require_shape(kName, "mask", *mask, {B, Lq, cache.length()}, "(batch, len_q, cached_len)");

  const Tensor4 q_heads = split_heads(w_q.forward(query_input), n_heads_);
  trace::step(kName, "project and split the new query", "Q", q_heads, "batch, heads, len_q, d_k");
  Tensor4 context;
  {
    trace::Scope scope("ScaledDotProductAttention over the cache, all heads at once");
    context = attention_.forward(q_heads, cache.keys, cache.values, mask);
  }
  Tensor3 output = w_o.forward(concat_heads(context));
  trace::step(kName, "concat heads, output projection", "output", output, "batch, len_q, d_model");
  return output;
}
// [mha forward cached]

void MultiHeadAttention::collect_parameters(ParameterList& list) {
  list.add_module("w_q", w_q);
  list.add_module("w_k", w_k);
  list.add_module("w_v", w_v);
  list.add_module("w_o", w_o);
}

}  // namespace tfm
