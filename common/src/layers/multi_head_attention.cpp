#include "tfm/layers/multi_head_attention.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "tfm/core/no_grad.hpp"
#include "tfm/core/trace.hpp"

namespace tfm {

namespace {

constexpr const char* kName = "MultiHeadAttention";
constexpr trace::Component traced(kName);
// Axis names of the trace lines.
constexpr const char* kLenQ = "batch, len_q, d_model";
constexpr const char* kLenK = "batch, len_k, d_model";
constexpr const char* kHeadsQ = "batch, heads, len_q, d_k";
constexpr const char* kHeadsK = "batch, heads, len_k, d_k";
constexpr const char* kHeadsV = "batch, heads, len_k, d_v";
constexpr const char* kHeadsContext = "batch, heads, len_q, d_v";
constexpr const char* kConcat = "batch, len_q, heads * d_v";

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
  // of row l. Each head becomes one contiguous [L, d_k] matrix, ready for matmul.
  const std::size_t B = x.shape(0), L = x.shape(1), d = x.shape(2);
  require(n_heads > 0 && d % n_heads == 0, "split_heads",
          "last axis of " + shape_string(x.shape()) + " is not divisible into " +
              std::to_string(n_heads) + " heads");
  const std::size_t d_k = d / n_heads;
  Tensor4 heads = Tensor4::from_shape({B, n_heads, L, d_k});
#pragma omp parallel for if (x.size() > (1 << 16))  // the sequences are copied independently
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
#pragma omp parallel for if (x.size() > (1 << 16))
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t l = 0; l < L; ++l) {  // row by row of the result: its writes stay in order
      float* row = joined.data() + (b * L + l) * H * d_k;
      for (std::size_t h = 0; h < H; ++h) {
        const float* head_row = x.data() + ((b * H + h) * L + l) * d_k;
        std::copy(head_row, head_row + d_k, row + h * d_k);
      }
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
                                    const Mask* mask, KeyValueCache* cache) {
  // query_input [B, Lq, d_model], memory [B, Lk, d_model], mask [B, Lq, Lk] -> [B, Lq, d_model]
  // With a cache: memory [B, n, d_model] holds the new positions only, Lk = cached + n.
  require(!cache || !grad_enabled(), kName, "a key/value cache is for decoding: use NoGrad");
  require_shape(kName, "query_input", query_input, {kAnyExtent, kAnyExtent, d_model_},
                "(batch, len_q, d_model)");
  require_shape(kName, "memory", memory, {kAnyExtent, kAnyExtent, d_model_},
                "(batch, len_k, d_model)");
  require(query_input.shape(0) == memory.shape(0), kName,
          "batch sizes differ: query_input " + shape_string(query_input.shape()) + ", memory " +
              shape_string(memory.shape()));
  const std::size_t B = query_input.shape(0), Lq = query_input.shape(1);
  const std::size_t Lk = (cache ? cache->length() : 0) + memory.shape(1);
  if (mask) require_shape(kName, "mask", *mask, {B, Lq, Lk}, "(batch, len_q, len_k)");

  // One [d_model, d_model] product projects every head at once.
  const Tensor3 query = traced(w_q.forward(query_input), "project queries", "Q", kLenQ);
  const Tensor3 key = traced(w_k.forward(memory), "project keys", "K", kLenK);
  const Tensor3 value = traced(w_v.forward(memory), "project values", "V", kLenK);

  // Head h owns columns h*d_k .. (h+1)*d_k - 1 of each projection.
  Tensor4 query_heads = traced(split_heads(query, n_heads_), "split heads", "Q", kHeadsQ);
  Tensor4 key_heads = traced(split_heads(key, n_heads_), "split heads", "K", kHeadsK);
  Tensor4 value_heads = traced(split_heads(value, n_heads_), "split heads", "V", kHeadsV);

  // Every head attends independently, with its own d_k-wide queries, keys and values; the mask
  // is the same for all heads.
  Tensor4 context;
  {
    trace::Scope scope("ScaledDotProductAttention, all heads at once");
    if (!cache) {
      // Moved in: the attention keeps the heads for backward (no copies).
      context = attention_.forward(std::move(query_heads), std::move(key_heads),
                                   std::move(value_heads), mask);
    } else {
      // Decoding: the earlier positions' keys and values were projected at earlier steps; the
      // new ones join them, and the queries read them all.
      cache->append(key_heads, value_heads);
      traced(cache->keys, "append keys to the cache", "K", "batch, heads, cached_len, d_k");
      traced(cache->values, "append values to the cache", "V", "batch, heads, cached_len, d_v");
      context = attention_.forward(query_heads, cache->keys, cache->values, mask);
    }
  }

  Tensor3 joined = traced(concat_heads(context), "concat heads", "concat", kConcat);
  // W_O mixes the heads: without it each output column would come from a single head.
  Tensor3 output = traced(w_o.forward(std::move(joined)), "output projection", "output", kLenQ);
  if (grad_enabled()) {  // sizes checked by backward
    has_forward_ = true;
    batch_ = B;
    len_q_ = Lq;
  }
  return output;
}
// [mha forward]

// [mha backward]
MultiHeadAttention::Grads MultiHeadAttention::backward(const Tensor3& grad_output) {
  // grad_output [B, Lq, d_model] -> query_input [B, Lq, d_model], memory [B, Lk, d_model]
  // Forward, step by step, and the backward of each step, run in reverse order:
  //   output = concat W_Oᵀ (+ b_O)        ->  grad_concat = grad_output W_O  (Linear backward)
  //   concat = concat_heads(C)            ->  dC = split_heads(grad_concat)  (the inverse copy)
  //   C = Attention(Qh, Kh, Vh)           ->  dQh, dKh, dVh                  (chapter 05)
  //   Qh = split_heads(Q), likewise K, V  ->  dQ = concat_heads(dQh), ...
  // (Q, K, V are query, key, value in the code; a formula's dX is the code's grad_<name>.)
  //   Q = query_input W_Qᵀ                ->  grad_query_input = dQ W_Q
  //   K = memory W_Kᵀ, V = memory W_Vᵀ    ->  grad_memory = dK W_K + dV W_V  (memory feeds both)
  // Each Linear backward also accumulates its own dW = dyᵀ x and db = Σ dy.
  require(has_forward_, kName, "backward called before forward");
  require_shape(std::string(kName) + " backward", "grad_output", grad_output,
                {batch_, len_q_, d_model_}, "(batch, len_q, d_model)");
  const Tensor3 grad_concat =
      traced(w_o.backward(grad_output), "backward W_O", "grad_concat", kLenQ);
  const Tensor4 grad_context =
      traced(split_heads(grad_concat, n_heads_), "backward concat", "grad_context", kHeadsContext);

  ScaledDotProductAttention::Grads grad_head_inputs;
  {
    trace::Scope scope("ScaledDotProductAttention backward");
    grad_head_inputs = attention_.backward(grad_context);
  }

  const Tensor3 grad_query =
      traced(concat_heads(grad_head_inputs.query), "backward split", "dQ", kLenQ);
  const Tensor3 grad_key =
      traced(concat_heads(grad_head_inputs.key), "backward split", "dK", kLenK);
  const Tensor3 grad_value =
      traced(concat_heads(grad_head_inputs.value), "backward split", "dV", kLenK);

  Tensor3 grad_query_input =
      traced(w_q.backward(grad_query), "backward W_Q", "grad_query_input", kLenQ);
  Tensor3 grad_memory = w_k.backward(grad_key);
  add_into(grad_memory, w_v.backward(grad_value));  // the memory fed both the keys and the values
  traced(grad_memory, "backward W_K, W_V", "grad_memory", kLenK);
  return {std::move(grad_query_input), std::move(grad_memory)};
}
// [mha backward]

void MultiHeadAttention::collect_parameters(ParameterList& list) {
  list.add_module("w_q", w_q);
  list.add_module("w_k", w_k);
  list.add_module("w_v", w_v);
  list.add_module("w_o", w_o);
}

}  // namespace tfm
