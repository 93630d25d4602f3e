#include "tfm/attention.hpp"

#include <cmath>
#include <string>

#include "tfm/matmul.hpp"
#include "tfm/softmax.hpp"
#include "tfm/trace.hpp"

// The book shows forward and backward side by side, one step per row: the code between the
// snippet markers is kept within 68 columns so that two columns fit on a page.

namespace tfm {

namespace {

constexpr const char* kName = "ScaledDotProductAttention";
// Axis names of the trace lines.
constexpr const char* kScoreAxes = "batch, heads, len_q, len_k";
constexpr const char* kQueryAxes = "batch, heads, len_q, d_k";
constexpr const char* kKeyAxes = "batch, heads, len_k, d_k";
constexpr const char* kValueAxes = "batch, heads, len_k, d_v";
constexpr const char* kContextAxes = "batch, heads, len_q, d_v";

// Sets scores[b, h, i, j] = value wherever mask[b, i, j] == 0, for every head h.
// scores [B, H, Lq, Lk], mask [B, Lq, Lk].
void fill_blocked(float* scores, const Mask& mask, std::size_t heads_per_item, float value) {
  const std::size_t B = mask.shape(0), pairs = mask.shape(1) * mask.shape(2);  // Lq * Lk
#pragma omp parallel for if (B * heads_per_item * pairs > (1 << 16))
  for (std::size_t b = 0; b < B; ++b) {
    const std::uint8_t* allowed = mask.data() + b * pairs;  // the same mask for every head
    for (std::size_t h = 0; h < heads_per_item; ++h) {
      float* s = scores + (b * heads_per_item + h) * pairs;
      for (std::size_t i = 0; i < pairs; ++i)
        if (!allowed[i]) s[i] = value;
    }
  }
}

}  // namespace

Tensor4 ScaledDotProductAttention::forward(const Tensor4& q, const Tensor4& k, const Tensor4& v,
                                           const Mask* mask) {
  // [sdpa forward inputs]
  // q [B, H, Lq, d_k], k [B, H, Lk, d_k], v [B, H, Lk, d_v],
  // mask [B, Lq, Lk] or none  ->  context [B, H, Lq, d_v]
  const std::size_t B = q.shape(0), H = q.shape(1);
  const std::size_t Lq = q.shape(2), d_k = q.shape(3);
  require_shape(kName, "key", k, {B, H, kAnyExtent, d_k},
                "(batch, heads, len_k, d_k)");
  const std::size_t Lk = k.shape(2);
  require_shape(kName, "value", v, {B, H, Lk, kAnyExtent},
                "(batch, heads, len_k, d_v)");
  const std::size_t d_v = v.shape(3);
  require(Lk > 0 && d_k > 0, kName,
          "need a key and d_k > 0, got key " +
              shape_string(k.shape()));
  if (mask)
    require_shape(kName, "mask", *mask, {B, Lq, Lk},
                  "(batch, len_q, len_k)");
  // Backward needs the three inputs and the mask.
  has_forward_ = true;
  q_ = q;
  k_ = k;
  v_ = v;
  has_mask_ = mask != nullptr;
  mask_ = has_mask_ ? *mask : Mask();
  const std::size_t heads = B * H;  // independent problems
  // [sdpa forward inputs]

  // [sdpa forward scores]
  // S = Q Kᵀ: [Lq, d_k] · [d_k, Lk] per (batch, head). BLAS
  // reads K transposed where it is; nothing is copied.
  Tensor4 scores = Tensor4::from_shape({B, H, Lq, Lk});
  float* S = scores.data();
  gemm_batched(heads, Op::kPlain, Op::kTransposed, Lq, Lk, d_k,
               1.0f, q.data(), d_k, Lq * d_k,  // Q [Lq, d_k]
               k.data(), d_k, Lk * d_k,        // K [Lk, d_k]
               0.0f, S, Lk, Lq * Lk);          // S [Lq, Lk]
  trace::step(kName, "scores", "S = Q K^T", scores, kScoreAxes);

  // Divide by sqrt(d_k): a dot product of d_k unit-variance
  // terms has variance d_k; unscaled, large heads would
  // saturate the softmax and stop its gradient.
  const float scale = 1.0f / std::sqrt(static_cast<float>(d_k));
  const std::size_t n = scores.size();
#pragma omp parallel for simd if (n > (1 << 16))
  for (std::size_t i = 0; i < n; ++i) S[i] *= scale;
  trace::step(kName, "scale", "S = S / sqrt(d_k)", scores,
              kScoreAxes);

  // Blocked pairs are replaced by -1e9 (as masked_fill does),
  // not -inf: a fully blocked row becomes uniform, not NaN.
  if (mask) {
    fill_blocked(S, *mask, H, kMaskedScore);
    trace::step(kName, "mask", "S[blocked] = -1e9", scores,
                kScoreAxes);
  }
  // [sdpa forward scores]

  // [sdpa forward softmax]
  // A = softmax over the keys, row by row. In place: S is not
  // needed again.
  softmax_rows(S, S, heads * Lq, Lk);
  weights_ = std::move(scores);
  const float* A = weights_.data();
  trace::step(kName, "softmax", "A = softmax(S)", weights_,
              kScoreAxes);
  // [sdpa forward softmax]

  // [sdpa forward context]
  // C = A V: each query's output is a weighted average of the
  // value rows.
  Tensor4 C = Tensor4::from_shape({B, H, Lq, d_v});
  gemm_batched(heads, Op::kPlain, Op::kPlain, Lq, d_v, Lk,
               1.0f, A, Lk, Lq * Lk,            // A [Lq, Lk]
               v.data(), d_v, Lk * d_v,         // V [Lk, d_v]
               0.0f, C.data(), d_v, Lq * d_v);  // C [Lq, d_v]
  trace::step(kName, "weighted sum", "C = A V", C, kContextAxes);
  return C;
  // [sdpa forward context]
}

ScaledDotProductAttention::Grads ScaledDotProductAttention::backward(const Tensor4& d_context) {
  // [sdpa backward inputs]
  // d_context [B, H, Lq, d_v]  ->  dq [B, H, Lq, d_k],
  //   dk [B, H, Lk, d_k], dv [B, H, Lk, d_v]
  // Forward's steps in reverse:
  //   C = A V               ->  dV = Aᵀ dC,  dA = dC Vᵀ
  //   A = softmax(S)        ->  dS = A * (dA - rowsum(dA * A)),
  //                             0 where blocked
  //   S = Q Kᵀ / sqrt(d_k)  ->  dQ = dS K / sqrt(d_k),
  //                             dK = dSᵀ Q / sqrt(d_k)
  require(has_forward_, kName,
          "backward called before forward");
  const std::size_t B = q_.shape(0), H = q_.shape(1);
  const std::size_t Lq = q_.shape(2), d_k = q_.shape(3);
  const std::size_t Lk = k_.shape(2), d_v = v_.shape(3);
  require_shape(std::string(kName) + " backward", "d_context",
                d_context, {B, H, Lq, d_v},
                "(batch, heads, len_q, d_v)");
  const std::size_t heads = B * H;
  const float *Q = q_.data(), *K = k_.data(), *V = v_.data();
  const float *A = weights_.data(), *dC = d_context.data();
  // [sdpa backward inputs]

  // [sdpa backward context]
  // dV = Aᵀ dC: [Lk, Lq] · [Lq, d_v] per (batch, head)
  Tensor4 dV = Tensor4::from_shape({B, H, Lk, d_v});
  gemm_batched(heads, Op::kTransposed, Op::kPlain, Lk, d_v, Lq,
               1.0f, A, Lk, Lq * Lk,             // A [Lq, Lk]
               dC, d_v, Lq * d_v,                // dC [Lq, d_v]
               0.0f, dV.data(), d_v, Lk * d_v);  // dV [Lk, d_v]
  trace::step(kName, "backward", "dV = A^T dC", dV, kValueAxes);

  // dA = dC Vᵀ: [Lq, d_v] · [d_v, Lk]
  Tensor4 d_scores = Tensor4::from_shape({B, H, Lq, Lk});
  float* dA = d_scores.data();
  gemm_batched(heads, Op::kPlain, Op::kTransposed, Lq, Lk, d_v,
               1.0f, dC, d_v, Lq * d_v,  // dC [Lq, d_v]
               V, d_v, Lk * d_v,         // V [Lk, d_v]
               0.0f, dA, Lk, Lq * Lk);   // dA [Lq, Lk]
  trace::step(kName, "backward", "dA = dC V^T", d_scores,
              kScoreAxes);
  // [sdpa backward context]

  // [sdpa backward softmax]
  // dS = softmax backward of dA, in place: from here on the
  // buffer of dA holds dS.
  float* dS = dA;
  softmax_rows_backward(A, dA, dS, heads * Lq, Lk);
  // A blocked score was overwritten by a constant, so its
  // gradient is 0. In a row with an allowed key, A = 0 at the
  // blocked keys and dS is 0 already; a fully blocked row
  // (uniform A) needs it set, as masked_fill's backward does.
  if (has_mask_) fill_blocked(dS, mask_, H, 0.0f);
  trace::step(kName, "backward", "dS = softmax'(dA)", d_scores,
              kScoreAxes);
  // [sdpa backward softmax]

  // [sdpa backward scores]
  // dQ = dS K / sqrt(d_k): [Lq, Lk] · [Lk, d_k]
  const float scale = 1.0f / std::sqrt(static_cast<float>(d_k));
  Tensor4 dQ = Tensor4::from_shape({B, H, Lq, d_k});
  gemm_batched(heads, Op::kPlain, Op::kPlain, Lq, d_k, Lk,
               scale, dS, Lk, Lq * Lk,           // dS [Lq, Lk]
               K, d_k, Lk * d_k,                 // K [Lk, d_k]
               0.0f, dQ.data(), d_k, Lq * d_k);  // dQ [Lq, d_k]
  trace::step(kName, "backward", "dQ = dS K / sqrt(d_k)", dQ,
              kQueryAxes);

  // dK = dSᵀ Q / sqrt(d_k): [Lk, Lq] · [Lq, d_k]
  Tensor4 dK = Tensor4::from_shape({B, H, Lk, d_k});
  gemm_batched(heads, Op::kTransposed, Op::kPlain, Lk, d_k, Lq,
               scale, dS, Lk, Lq * Lk,           // dS [Lq, Lk]
               Q, d_k, Lq * d_k,                 // Q [Lq, d_k]
               0.0f, dK.data(), d_k, Lk * d_k);  // dK [Lk, d_k]
  trace::step(kName, "backward", "dK = dS^T Q / sqrt(d_k)", dK,
              kKeyAxes);
  return {std::move(dQ), std::move(dK), std::move(dV)};
  // [sdpa backward scores]
}

}  // namespace tfm
