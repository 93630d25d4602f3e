/// \file decoder_layer.hpp
/// \brief Chapter 08: one decoder layer — causal self-attention, cross-attention over the
/// encoder's output, and a feed-forward network, each wrapped in Add & Norm.
#pragma once

#include <functional>

#include "tfm/core/random.hpp"
#include "tfm/layers/add_norm.hpp"
#include "tfm/layers/feed_forward.hpp"
#include "tfm/layers/key_value_cache.hpp"
#include "tfm/layers/mask.hpp"
#include "tfm/layers/multi_head_attention.hpp"
#include "tfm/model/config.hpp"

namespace tfm {

/// What one decoder layer keeps between the steps of decoding (chapter 11).
struct DecoderLayerCache {
  KeyValueCache self_attn;   ///< every target position fed so far; one more per step
  KeyValueCache cross_attn;  ///< the encoder output, projected once, at the first step
};

/// `x = Norm(x + SelfAttention(x, causal))`, `x = Norm(x + CrossAttention(x, memory))`,
/// `x = Norm(x + FFN(x))`.
class DecoderLayer {
 public:
  /// Weights drawn from `rng`, as are the seeds of the layer's dropouts.
  DecoderLayer(const Config& config, Rng& rng);

  /// x `[B, T, d]`, memory (the encoder's output) `[B, S, d]`, self_mask `[B, T, T]` (padding and
  /// subsequent), cross_mask `[B, T, S]` (padding of the source) -> `[B, T, d]`.
  ///
  /// Decoding (chapter 11, inference only) passes the layer's `cache`: x then holds only the T
  /// new positions, and self_mask `[B, T, t]` covers all t positions fed so far (the new ones
  /// included). memory is read at the first step only; later steps read its cached keys and
  /// values.
  Tensor3 forward(const Tensor3& x, const Tensor3& memory, const Mask* self_mask,
                  const Mask* cross_mask, DecoderLayerCache* cache = nullptr);

  /// The gradients of the two inputs.
  struct Grads {
    Tensor3 x;       ///< `[B, T, d]`
    Tensor3 memory;  ///< `[B, S, d]`: the decoder's contribution to the encoder's gradient
  };
  /// grad_y `[B, T, d]` -> gradients of x and of memory; accumulates every parameter's gradient.
  Grads backward(const Tensor3& grad_y);

  /// Dropout on in training, off in evaluation.
  void set_training(bool on);
  /// Calls `visit` on every Dropout inside, always in the same order (the one walk that
  /// set_training and resume_training use).
  void for_each_dropout(const std::function<void(Dropout&)>& visit);
  /// `self_attn.*`, `norm1.*`, `cross_attn.*`, `norm2.*`, `ffn.*`, `norm3.*`.
  void collect_parameters(ParameterList& list);

  MultiHeadAttention self_attn;   ///< masked (causal) self-attention
  AddNorm norm1;                  ///< around self-attention
  MultiHeadAttention cross_attn;  ///< queries from the decoder, keys and values from memory
  AddNorm norm2;                  ///< around cross-attention
  FeedForward ffn;                ///< position-wise feed-forward network
  AddNorm norm3;                  ///< around the feed-forward network
};

}  // namespace tfm
