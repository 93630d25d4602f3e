/// \file encoder_layer.hpp
/// \brief Chapter 08: one encoder layer — self-attention and a feed-forward network, each
/// wrapped in Add & Norm.
#pragma once

#include <functional>

#include "tfm/core/random.hpp"
#include "tfm/layers/add_norm.hpp"
#include "tfm/layers/feed_forward.hpp"
#include "tfm/layers/mask.hpp"
#include "tfm/layers/multi_head_attention.hpp"
#include "tfm/model/config.hpp"

namespace tfm {

/// `x = Norm(x + SelfAttention(x))`, then `x = Norm(x + FFN(x))`.
class EncoderLayer {
 public:
  /// Weights drawn from `rng`, as are the seeds of the layer's dropouts.
  EncoderLayer(const Config& config, Rng& rng);

  /// x `[B, S, d_model]`, src_mask `[B, S, S]` (padding of the source) -> `[B, S, d_model]`.
  Tensor3 forward(const Tensor3& x, const Mask* src_mask);
  /// grad_y `[B, S, d_model]` -> grad_x `[B, S, d_model]`; accumulates every parameter's gradient.
  Tensor3 backward(const Tensor3& grad_y);

  /// Dropout on in training, off in evaluation.
  void set_training(bool on);
  /// Calls `visit` on every Dropout inside, always in the same order (the one walk that
  /// set_training and resume_training use).
  void for_each_dropout(const std::function<void(Dropout&)>& visit);
  /// `self_attn.*`, `norm1.*`, `ffn.*`, `norm2.*`.
  void collect_parameters(ParameterList& list);

  MultiHeadAttention self_attn;  ///< queries, keys and values all from x
  AddNorm norm1;                 ///< around self-attention
  FeedForward ffn;               ///< position-wise feed-forward network
  AddNorm norm2;                 ///< around the feed-forward network
};

}  // namespace tfm
