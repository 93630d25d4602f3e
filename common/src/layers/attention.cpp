#include "tfm/layers/attention.hpp"

#include <cmath>
#include <string>

#include "tfm/core/matmul.hpp"
#include "tfm/core/no_grad.hpp"
#include "tfm/core/profile.hpp"
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

Tensor4 ScaledDotProductAttention::forward(const Tensor4& q, const Tensor4& k, const Tensor4& v,
                                           const Mask* mask) {
  const profile::Scope timed("attention forward (scale, mask)");
  // [sdpa forward inputs]
  // q [B, H, Lq, d_k], k [B, H, Lk, d_k], v [B, H, Lk, d_v], mask [B, Lq, Lk] or none
  //   -> context [B, H, Lq, d_v]; every (batch, head) pair is an independent problem.
  const std::size_t B = q.shape(0), H = q.shape(1), Lq = q.shape(2), d_k = q.shape(3);
  require_shape(kName, "key", k, {B, H, kAnyExtent, d_k}, "(batch, heads, len_k, d_k)");
  const std::size_t Lk = k.shape(2);
  require_shape(kName, "value", v, {B, H, Lk, kAnyExtent}, "(batch, heads, len_k, d_v)");
  require(Lk > 0 && d_k > 0, kName, "need a key and d_k > 0, got key " + shape_string(k.shape()));
  if (mask) require_shape(kName, "mask", *mask, {B, Lq, Lk}, "(batch, len_q, len_k)");
  // [sdpa forward inputs]

  // [sdpa forward scores]
  // S = Q Kᵀ: [Lq, d_k] · [d_k, Lk] per (batch, head); K is read transposed where it is.
  Tensor4 scores = traced(matmul(q, k, Op::kPlain, Op::kTransposed), "scores", "S = Q K^T",
                          kScoreAxes);
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
  Tensor4 context = traced(matmul(weights, v), "weighted sum", "C = A V", kContextAxes);
  if (grad_enabled()) {  // backward needs the three inputs, the mask and the weights
    q_ = q;
    k_ = k;
    v_ = v;
    has_mask_ = mask != nullptr;
    mask_ = has_mask_ ? *mask : Mask();
    weights_ = std::move(weights);
    has_forward_ = true;
  }
  return context;
  // [sdpa forward context]
}

ScaledDotProductAttention::Grads ScaledDotProductAttention::backward(const Tensor4& d_context) {
  const profile::Scope timed("attention backward (mask)");
  // [sdpa backward inputs]
  // d_context [B, H, Lq, d_v] -> dq [B, H, Lq, d_k], dk [B, H, Lk, d_k], dv [B, H, Lk, d_v]
  // Forward's steps in reverse:
  //   C = A V               ->  dV = Aᵀ dC,  dA = dC Vᵀ
  //   A = softmax(S)        ->  dS = A * (dA - rowsum(dA * A)), 0 where blocked
  //   S = Q Kᵀ / sqrt(d_k)  ->  dQ = dS K / sqrt(d_k),  dK = dSᵀ Q / sqrt(d_k)
  require(has_forward_, kName, "backward called before forward");
  require_shape(std::string(kName) + " backward", "d_context", d_context,
                {q_.shape(0), q_.shape(1), q_.shape(2), v_.shape(3)}, "(batch, heads, len_q, d_v)");
  const Tensor4& A = weights_;
  // [sdpa backward inputs]

  // [sdpa backward context]
  // dV = Aᵀ dC: [Lk, Lq] · [Lq, d_v] per (batch, head)
  Tensor4 dV = traced(matmul(A, d_context, Op::kTransposed, Op::kPlain), "backward",
                      "dV = A^T dC", kValueAxes);
  // dA = dC Vᵀ: [Lq, d_v] · [d_v, Lk]
  Tensor4 dA = traced(matmul(d_context, v_, Op::kPlain, Op::kTransposed), "backward",
                      "dA = dC V^T", kScoreAxes);
  // [sdpa backward context]

  // [sdpa backward softmax]
  // dS = softmax backward of dA (in place). A blocked score was overwritten by a constant, so
  // its gradient is 0. In a row with an allowed key, A = 0 at the blocked keys and dS is 0
  // already; a fully blocked row (uniform A) needs it set, as masked_fill's backward does.
  Tensor4 dS = softmax_rows_backward(A, std::move(dA));
  if (has_mask_) dS = fill_blocked(std::move(dS), mask_, 0.0f);
  trace::step(kName, "backward", "dS = softmax'(dA)", dS, kScoreAxes);
  // [sdpa backward softmax]

  // [sdpa backward scores]
  // dQ = dS K / sqrt(d_k): [Lq, Lk] · [Lk, d_k];  dK = dSᵀ Q / sqrt(d_k): [Lk, Lq] · [Lq, d_k]
  const float scale = 1.0f / std::sqrt(static_cast<float>(q_.shape(3)));
  Tensor4 dQ = traced(matmul(dS, k_, Op::kPlain, Op::kPlain, scale), "backward",
                      "dQ = dS K / sqrt(d_k)", kQueryAxes);
  Tensor4 dK = traced(matmul(dS, q_, Op::kTransposed, Op::kPlain, scale), "backward",
                      "dK = dS^T Q / sqrt(d_k)", kKeyAxes);
  return {std::move(dQ), std::move(dK), std::move(dV)};
  // [sdpa backward scores]
}

}  // namespace tfm
