/// \file linear.hpp
/// \brief Chapter 06: a fully connected layer, `y = x Wᵀ + b`, applied to every position of every sequence.
#pragma once

#include <cstddef>

#include "tfm/core/parameter.hpp"
#include "tfm/core/random.hpp"
#include "tfm/core/tensor.hpp"

namespace tfm {

/// `nn.Linear(in_features, out_features, bias)`: weight `[out, in]` as PyTorch stores it.
class Linear {
 public:
  /// Initialised as PyTorch does: weight and bias uniform in ±1/√in_features.
  Linear(std::size_t in_features, std::size_t out_features, bool bias, Rng& rng);

  /// x `[B, L, in]` -> y `[B, L, out]`. Keeps a copy of x for backward (nothing under NoGrad).
  Tensor3 forward(const Tensor3& x);
  /// The same for an x the caller no longer needs: it is kept without a copy.
  Tensor3 forward(Tensor3&& x);
  /// grad_y `[B, L, out]` -> grad_x `[B, L, in]`; accumulates dW = dyᵀ x and db = Σ dy.
  Tensor3 backward(const Tensor3& grad_y);

  /// Registers `weight` and (if present) `bias`.
  void collect_parameters(ParameterList& list);

  /// The sizes given to the constructor: width of an input vector, width of an output vector.
  ///@{
  std::size_t in_features() const { return in_; }
  std::size_t out_features() const { return out_; }
  ///@}

  Param<2> weight;  ///< `[out, in]`
  Param<1> bias;    ///< `[out]`, or empty when the layer has no bias

 private:
  std::size_t in_, out_;
  void check_input(const Tensor3& x) const;
  Tensor3 x_;  // forward's input, for dW
  bool has_forward_ = false;
};

}  // namespace tfm
