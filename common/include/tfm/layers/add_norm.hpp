/// \file add_norm.hpp
/// \brief Chapter 08: "Add & Norm": the residual connection around every sub-layer, post-norm as in the paper:
/// `LayerNorm(x + Dropout(sublayer(x)))`.
#pragma once

#include <cstdint>
#include <functional>

#include "tfm/core/parameter.hpp"
#include "tfm/core/tensor.hpp"
#include "tfm/layers/dropout.hpp"
#include "tfm/layers/layer_norm.hpp"

namespace tfm {

/// `y = LayerNorm(residual + Dropout(sublayer_output))`.
///
/// Reference 000 writes the decoder's cross-attention block as `x = x + norm2(out); x = norm2(x)`
/// (the norm applied twice, no dropout); every block here uses this one definition instead.
class AddNorm {
 public:
  /// A LayerNorm over `d_model` features (weight 1, bias 0) and a Dropout with probability
  /// `dropout` drawing its masks from its own Rng seeded with `dropout_seed`.
  AddNorm(std::size_t d_model, float dropout, std::uint64_t dropout_seed);

  /// residual `[B, L, d]`, sublayer_output `[B, L, d]` -> `[B, L, d]`. The sub-layer output is
  /// taken by value: move it in, and dropout and the sum reuse its memory.
  Tensor3 forward(const Tensor3& residual, Tensor3 sublayer_output);

  /// The gradients of the two inputs.
  struct Grads {
    Tensor3 residual;         ///< `[B, L, d]`
    Tensor3 sublayer_output;  ///< `[B, L, d]`
  };
  /// grad_y `[B, L, d]` -> gradients of the residual and of the sub-layer's output.
  Grads backward(const Tensor3& grad_y);

  /// Dropout on in training, off in evaluation.
  void set_training(bool on) { dropout_.set_training(on); }
  /// Calls `visit` on its Dropout (see Transformer::for_each_dropout).
  void for_each_dropout(const std::function<void(Dropout&)>& visit) { visit(dropout_); }
  /// Registers the norm's `weight` and `bias` (no extra name level: `norm1.weight`).
  void collect_parameters(ParameterList& list) { norm.collect_parameters(list); }

  LayerNorm norm;  ///< the LayerNorm over d_model

 private:
  Dropout dropout_;
};

}  // namespace tfm
