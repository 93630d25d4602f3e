/// \file attention.hpp
/// \brief Chapter 05: scaled dot-product attention, forward and backward.
///
/// \f[ \mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}}\right) V \f]
/// computed for every (batch, head) pair at once. Blocked pairs (mask entry 0) get the score
/// -1e9 before the softmax, as the reference write-ups do.
#pragma once

#include "tfm/core/tensor.hpp"
#include "tfm/layers/mask.hpp"

namespace tfm {

/// The attention of one layer, for all heads; no parameters (the projections belong to
/// multi-head attention, chapter 06).
class ScaledDotProductAttention {
 public:
  /// The score given to blocked pairs: large and negative but finite, so that a fully blocked
  /// row gives uniform weights instead of NaN (as `masked_fill(mask == 0, -1e9)` does).
  static constexpr float kMaskedScore = -1e9f;

  /// query `[B, H, Lq, d_k]`, key `[B, H, Lk, d_k]`, value `[B, H, Lk, d_v]`, mask `[B, Lq, Lk]` (shared by
  /// the heads) or nullptr -> context `[B, H, Lq, d_v]`:
  /// softmax(Q Kᵀ / sqrt(d_k), blocked positions filled with -1e9) V.
  /// Keeps query, key, value, the mask and the weights for backward (under NoGrad: nothing).
  Tensor4 forward(Tensor4&& query, Tensor4&& key, Tensor4&& value, const Mask* mask = nullptr);
  /// The same, for inputs the caller keeps: backward keeps copies of them (under NoGrad: nothing
  /// is copied).
  Tensor4 forward(const Tensor4& query, const Tensor4& key, const Tensor4& value,
                  const Mask* mask = nullptr);

  /// The gradients of the loss with respect to forward's three inputs.
  struct Grads {
    Tensor4 query;  ///< dL/dquery `[B, H, Lq, d_k]`
    Tensor4 key;    ///< dL/dkey `[B, H, Lk, d_k]`
    Tensor4 value;  ///< dL/dvalue `[B, H, Lk, d_v]`
  };
  /// grad_context `[B, H, Lq, d_v]` -> grad_query `[B, H, Lq, d_k]`, grad_key `[B, H, Lk, d_k]`,
  /// grad_value `[B, H, Lk, d_v]`.
  Grads backward(const Tensor4& grad_context);

  /// The attention weights of the last forward (with gradients on), `[B, H, Lq, Lk]`; every row
  /// sums to 1.
  const Tensor4& weights() const { return weights_; }

 private:
  // softmax(Q Kᵀ / sqrt(d_k), masked) V; keeps the weights (and the mask) for backward.
  Tensor4 attend(const Tensor4& query, const Tensor4& key, const Tensor4& value, const Mask* mask);

  Tensor4 query_, key_, value_;  // forward's inputs, for the gradients of the two products
  Tensor4 weights_;              // softmax output A, for dV = Aᵀ dC and the softmax backward
  Mask mask_;                    // forward's mask (empty if none): blocked scores get no gradient
  bool has_mask_ = false;
  bool has_forward_ = false;
};

}  // namespace tfm
