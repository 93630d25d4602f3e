/// \file relu.hpp
/// \brief Chapter 07: the rectifier of the feed-forward network, `y = max(0, x)`, with its backward.
#pragma once

#include "tfm/core/tensor.hpp"

namespace tfm {

/// `nn.ReLU()`: elementwise `max(0, x)`. Has no parameters.
class ReLU {
 public:
  /// x `[B, L, d]` -> y `[B, L, d]`, written over x (moved in: no copy, no new memory). Keeps
  /// one byte per entry for backward: was x > 0?
  Tensor3 forward(Tensor3&& x);
  /// The same on a copy of `x`.
  Tensor3 forward(const Tensor3& x) { return forward(Tensor3(x)); }
  /// grad_y `[B, L, d]` -> grad_x `[B, L, d]`: the gradient passes where the input was positive.
  /// Written over grad_y (moved in: no copy, no new memory).
  Tensor3 backward(Tensor3&& grad_y);
  /// The same on a copy of `grad_y`.
  Tensor3 backward(const Tensor3& grad_y) { return backward(Tensor3(grad_y)); }

 private:
  ByteTensor3 positive_;  // 1 where forward's input was > 0: the entries the gradient passes
};

}  // namespace tfm
