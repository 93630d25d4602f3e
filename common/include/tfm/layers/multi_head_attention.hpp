/// \file multi_head_attention.hpp
/// \brief Chapter 06: multi-head attention, forward and backward.
///
/// \f[ \mathrm{MultiHead}(Q, K, V) = \mathrm{Concat}(\mathrm{head}_1, \ldots, \mathrm{head}_h)\,
/// W^O,
///     \qquad \mathrm{head}_i = \mathrm{Attention}(Q W_i^Q, K W_i^K, V W_i^V) \f]
///
/// The h per-head projections are stored side by side as one `[d_model, d_model]` matrix each
/// (as every reference does): one product projects all heads at once, and splitting the result's
/// last axis into h slices of d_k = d_model / h columns gives the heads.
#pragma once

#include <cstddef>

#include "tfm/core/parameter.hpp"
#include "tfm/core/random.hpp"
#include "tfm/core/tensor.hpp"
#include "tfm/layers/attention.hpp"
#include "tfm/layers/key_value_cache.hpp"
#include "tfm/layers/linear.hpp"
#include "tfm/layers/mask.hpp"

namespace tfm {

/// Splits the last axis into heads: x `[B, L, H * d_k]` -> `[B, H, L, d_k]` (a copy).
/// PyTorch's `x.view(B, L, H, d_k).transpose(1, 2)`. Its backward is concat_heads.
Tensor4 split_heads(const Tensor3& x, std::size_t n_heads);

/// Puts the heads side by side again: x `[B, H, L, d_k]` -> `[B, L, H * d_k]` (a copy).
/// PyTorch's `x.transpose(1, 2).contiguous().view(B, L, H * d_k)`. Its backward is split_heads.
Tensor3 concat_heads(const Tensor4& x);

/// Multi-head attention with the projections W_Q, W_K, W_V and W_O, each
/// `nn.Linear(d_model, d_model, bias)`.
///
/// Self-attention passes the same tensor as query input and memory; the decoder's
/// cross-attention passes its own states as query input and the encoder output as memory.
class MultiHeadAttention {
 public:
  /// d_model must be a multiple of n_heads (d_k = d_model / n_heads); throws
  /// std::invalid_argument naming both otherwise. `bias`: reference 000 has biases, 001 and 002
  /// do not. The weights are drawn from `rng` in the order w_q, w_k, w_v, w_o.
  MultiHeadAttention(std::size_t d_model, std::size_t n_heads, bool bias, Rng& rng);

  /// query_input `[B, Lq, d_model]`, memory `[B, Lk, d_model]`, mask `[B, Lq, Lk]`
  /// (1 = may attend) or nullptr -> `[B, Lq, d_model]`.
  /// Queries come from query_input, keys and values from memory. Throws ShapeError naming the
  /// shapes if the widths, the batch sizes or the mask do not fit.
  ///
  /// Decoding (chapter 11, inference only) passes the `cache` of the earlier steps: memory then
  /// holds only the n new positions (n may be 0), their keys and values are appended to the
  /// cache, and the queries attend to all of its Lk = cached + n positions.
  Tensor3 forward(const Tensor3& query_input, const Tensor3& memory, const Mask* mask = nullptr,
                  KeyValueCache* cache = nullptr);

  /// The gradients of the loss with respect to forward's two inputs.
  struct Grads {
    Tensor3 query_input;  ///< `[B, Lq, d_model]`, through W_Q
    Tensor3 memory;       ///< `[B, Lk, d_model]`, through W_K and W_V
  };
  /// grad_output `[B, Lq, d_model]` -> the gradients of both inputs; accumulates the gradients of
  /// the four projections. For self-attention the caller adds the two (the input was used twice).
  Grads backward(const Tensor3& grad_output);

  /// Registers `w_q`, `w_k`, `w_v`, `w_o` (each `.weight` and, with bias, `.bias`).
  void collect_parameters(ParameterList& list);

  /// Attention weights of the last forward with gradients on, `[B, H, Lq, Lk]` (for heat maps).
  const Tensor4& attention_weights() const { return attention_.weights(); }
  /// Number of heads, h.
  std::size_t n_heads() const { return n_heads_; }
  /// Width of one head, d_k = d_v = d_model / h.
  std::size_t d_k() const { return d_model_ / n_heads_; }
  /// Width of the inputs and of the output.
  std::size_t d_model() const { return d_model_; }

  Linear w_q;  ///< W^Q: query input -> queries of all heads, `[d_model, d_model]`
  Linear w_k;  ///< W^K: memory -> keys of all heads
  Linear w_v;  ///< W^V: memory -> values of all heads
  Linear w_o;  ///< W^O: concatenated heads -> output (reference 000 calls it `w_concat`)

 private:
  std::size_t d_model_, n_heads_;
  ScaledDotProductAttention attention_;  // all heads at once; keeps Q, K, V and the weights
  // Sizes of the last forward, checked by backward (the Linears keep the inputs themselves).
  bool has_forward_ = false;
  std::size_t batch_ = 0, len_q_ = 0;
};

}  // namespace tfm
