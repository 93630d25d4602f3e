/// \file layer_norm.hpp
/// \brief Chapter 08: layer normalisation over the model dimension, `nn.LayerNorm(d_model, eps=1e-5)`.
///
/// Every position's vector is shifted to mean 0 and scaled to variance 1 over its own
/// `d_model` features, then scaled and shifted back by learned per-feature `weight` and `bias`:
/// \f[ \hat x = \frac{x - \mu}{\sqrt{\sigma^2 + \epsilon}}, \qquad y = w \odot \hat x + b, \f]
/// with \f$ \mu \f$ and \f$ \sigma^2 \f$ the mean and *biased* variance (divided by `d_model`,
/// not `d_model - 1`) of that one row, and \f$ \epsilon \f$ inside the square root: exactly
/// PyTorch's definition, so that its weights and results carry over.
#pragma once

#include <cstddef>
#include <vector>

#include "tfm/core/parameter.hpp"
#include "tfm/core/tensor.hpp"

namespace tfm {

/// `nn.LayerNorm(d_model, eps)`: normalises the last axis of `[batch, len, d_model]`.
class LayerNorm {
 public:
  /// weight = 1, bias = 0, as PyTorch initialises them (the layer starts as a pure normaliser).
  explicit LayerNorm(std::size_t d_model, float eps = 1e-5f);

  /// x `[B, L, d]` -> y `[B, L, d]`. Keeps x̂ and 1/σ of every row for backward.
  Tensor3 forward(const Tensor3& x);
  /// grad_y `[B, L, d]` -> grad_x `[B, L, d]`; accumulates weight.grad += Σ grad_y ⊙ x̂ and
  /// bias.grad += Σ grad_y.
  Tensor3 backward(const Tensor3& grad_y);

  /// Registers `weight` and `bias`.
  void collect_parameters(ParameterList& list);

  /// The settings given to the constructor: the normalised width, and the ε added to σ².
  ///@{
  std::size_t d_model() const { return d_; }
  float eps() const { return eps_; }
  ///@}

  Param<1> weight;  ///< `[d_model]`, the learned scale
  Param<1> bias;    ///< `[d_model]`, the learned shift

 private:
  std::size_t d_;
  float eps_;
  Tensor3 x_hat_;               // forward's normalised input x̂, [B, L, d]
  std::vector<float> inv_std_;  // forward's 1/σ of every row, [B*L]
};

}  // namespace tfm
