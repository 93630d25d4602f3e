#include "tfm/layers/attention.hpp"

#include <cmath>
#include <string>

#include "tfm/core/matmul.hpp"
#include "tfm/core/no_grad.hpp"
#include "tfm/core/trace.hpp"
#include "tfm/layers/softmax.hpp"

namespace tfm {

namespace {

constexpr trace::Component traced("ScaledDotProductAttention");
constexpr const char* kName = "ScaledDotProductAttention";
// Axis names of the trace lines.
constexpr const char* kScoreAxes = "batch, heads, len_q, len_k";
constexpr const char* kQueryAxes = "batch, heads, len_q, d_k";
constexpr const char* kKeyAxes = "batch, heads, len_k, d_k";
constexpr const char* kValueAxes = "batch, heads, len_k, d_v";
constexpr const char* kContextAxes = "batch, heads, len_q, d_v";

// scores [B, H, Lq, Lk], mask [B, Lq, Lk] -> scores[b, h, i, j] = value wherever
// mask[b, i, j] == 0, for every head h. Returns scores.
Tensor4 fill_blocked(Tensor4 scores, const Mask& mask, float value) {
  const std::size_t B = scores.shape(0), H = scores.shape(1);
  const std::size_t pairs = mask.shape(1) * mask.shape(2);  // Lq * Lk
#pragma omp parallel for if (B * H * pairs > (1 << 16))
  for (std::size_t b = 0; b < B; ++b) {
    const std::uint8_t* allowed = mask.data() + b * pairs;  // the same mask for every head
    for (std::size_t h = 0; h < H; ++h) {
      float* s = scores.data() + (b * H + h) * pairs;
      for (std::size_t i = 0; i < pairs; ++i)
        if (!allowed[i]) s[i] = value;
    }
  }
  return scores;
}

}  // namespace

Tensor4 ScaledDotProductAttention::forward(Tensor4&& query, Tensor4&& key, Tensor4&& value,
                                           const Mask* mask) {
  Tensor4 context = attend(query, key, value, mask);
  if (grad_enabled()) {  // backward needs the three inputs for the gradients of the two products
    query_ = std::move(query);
    key_ = std::move(key);
    value_ = std::move(value);
  }
  return context;
}

Tensor4 ScaledDotProductAttention::forward(const Tensor4& query, const Tensor4& key,
                                           const Tensor4& value, const Mask* mask) {
  if (grad_enabled()) return forward(Tensor4(query), Tensor4(key), Tensor4(value), mask);
  return attend(query, key, value, mask);  // inference: nothing to keep, nothing copied
}

Tensor4 ScaledDotProductAttention::attend(const Tensor4& query, const Tensor4& key,
                                          const Tensor4& value, const Mask* mask) {
  // [sdpa forward inputs]
  // query [B, H, Lq, d_k], key [B, H, Lk, d_k], value [B, H, Lk, d_v], mask [B, Lq, Lk] or none
  //   -> context [B, H, Lq, d_v]; every (batch, head) pair is an independent problem.
  const std::size_t B = query.shape(0), H = query.shape(1), Lq = query.shape(2),
                    d_k = query.shape(3);
  require_shape(kName, "key", key, {B, H, kAnyExtent, d_k}, "(batch, heads, len_k, d_k)");
  const std::size_t Lk = key.shape(2);
  require_shape(kName, "value", value, {B, H, Lk, kAnyExtent}, "(batch, heads, len_k, d_v)");
  require(Lk > 0 && d_k > 0, kName, "need a key and d_k > 0, got key " + shape_string(key.shape()));
  if (mask) require_shape(kName, "mask", *mask, {B, Lq, Lk}, "(batch, len_q, len_k)");
  // [sdpa forward inputs]

  // [sdpa forward scores]
  // S = Q Kᵀ: [Lq, d_k] · [d_k, Lk] per (batch, head); K is read transposed where it is.
  Tensor4 scores =
      traced(matmul(query, key, Op::kPlain, Op::kTransposed), "scores", "S = Q K^T", kScoreAxes);
  // Divide by sqrt(d_k): a dot product of d_k unit-variance terms has variance d_k; unscaled,
  // large heads would saturate the softmax and stop its gradient.
  const float scale = 1.0f / std::sqrt(static_cast<float>(d_k));
  scores = traced(scaled(std::move(scores), scale), "scale", "S = S / sqrt(d_k)", kScoreAxes);
  // Blocked pairs are replaced by -1e9 (as masked_fill does), not -inf: a fully blocked row
  // becomes uniform, not NaN.
  if (mask)
    scores = traced(fill_blocked(std::move(scores), *mask, kMaskedScore), "mask",
                    "S[blocked] = -1e9", kScoreAxes);
  // [sdpa forward scores]

  // [sdpa forward softmax]
  // A = softmax over the keys, row by row (in place: S is not needed again).
  Tensor4 weights =
      traced(softmax_rows(std::move(scores)), "softmax", "A = softmax(S)", kScoreAxes);
  // [sdpa forward softmax]

  // [sdpa forward context]
  // C = A V: each query's output is a weighted average of the value rows.
  Tensor4 context = traced(matmul(weights, value), "weighted sum", "C = A V", kContextAxes);
  if (grad_enabled()) {  // backward needs Q, K, V (kept by forward), the mask and the weights
    has_mask_ = mask != nullptr;
    mask_ = has_mask_ ? *mask : Mask();
    weights_ = std::move(weights);
    has_forward_ = true;
  }
  return context;
  // [sdpa forward context]
}

ScaledDotProductAttention::Grads ScaledDotProductAttention::backward(const Tensor4& grad_context) {
  // [sdpa backward inputs]
  // grad_context [B, H, Lq, d_v] -> grad_query [B, H, Lq, d_k], grad_key [B, H, Lk, d_k],
  //                                 grad_value [B, H, Lk, d_v]
  // Forward's steps in reverse:
  //   C = A V               ->  dV = Aᵀ dC,  dA = dC Vᵀ
  //   A = softmax(S)        ->  dS = A * (dA - rowsum(dA * A)), 0 where blocked
  //   S = Q Kᵀ / sqrt(d_k)  ->  dQ = dS K / sqrt(d_k),  dK = dSᵀ Q / sqrt(d_k)
  // (Q, K, V, S, A, C are query, key, value, scores, weights, context; a formula's dX is the
  // code's grad_<name>.)
  require(has_forward_, kName, "backward called before forward");
  require_shape(std::string(kName) + " backward", "grad_context", grad_context,
                {query_.shape(0), query_.shape(1), query_.shape(2), value_.shape(3)},
                "(batch, heads, len_q, d_v)");
  const Tensor4& weights = weights_;
  // [sdpa backward inputs]

  // [sdpa backward context]
  // dV = Aᵀ dC: [Lk, Lq] · [Lq, d_v] per (batch, head)
  Tensor4 grad_value = traced(matmul(weights, grad_context, Op::kTransposed, Op::kPlain),
                              "backward", "dV = A^T dC", kValueAxes);
  // dA = dC Vᵀ: [Lq, d_v] · [d_v, Lk]
  Tensor4 grad_weights = traced(matmul(grad_context, value_, Op::kPlain, Op::kTransposed),
                                "backward", "dA = dC V^T", kScoreAxes);
  // [sdpa backward context]

  // [sdpa backward softmax]
  // dS = softmax backward of dA (in place). A blocked score was overwritten by a constant, so
  // its gradient is 0. In a row with an allowed key, A = 0 at the blocked keys and dS is 0
  // already; a fully blocked row (uniform A) needs it set, as masked_fill's backward does.
  Tensor4 grad_scores = softmax_rows_backward(weights, std::move(grad_weights));
  if (has_mask_) grad_scores = fill_blocked(std::move(grad_scores), mask_, 0.0f);
  traced(grad_scores, "backward", "dS = softmax'(dA)", kScoreAxes);
  // [sdpa backward softmax]

  // [sdpa backward scores]
  // dQ = dS K / sqrt(d_k): [Lq, Lk] · [Lk, d_k];  dK = dSᵀ Q / sqrt(d_k): [Lk, Lq] · [Lq, d_k]
  const float scale = 1.0f / std::sqrt(static_cast<float>(query_.shape(3)));
  Tensor4 grad_query = traced(matmul(grad_scores, key_, Op::kPlain, Op::kPlain, scale), "backward",
                              "dQ = dS K / sqrt(d_k)", kQueryAxes);
  Tensor4 grad_key = traced(matmul(grad_scores, query_, Op::kTransposed, Op::kPlain, scale),
                            "backward", "dK = dS^T Q / sqrt(d_k)", kKeyAxes);
  return {std::move(grad_query), std::move(grad_key), std::move(grad_value)};
  // [sdpa backward scores]
}

}  // namespace tfm
