/// \file relu.hpp
/// \brief The rectifier of the feed-forward network, `y = max(0, x)`, with its backward.
#pragma once

#include "tfm/tensor.hpp"

namespace tfm {

/// `nn.ReLU()`: elementwise `max(0, x)`. Has no parameters.
class ReLU {
 public:
  /// x `[B, L, d]` -> y `[B, L, d]`. Keeps y for backward (y > 0 exactly where x > 0).
  Tensor3 forward(const Tensor3& x);
  /// dy `[B, L, d]` -> dx `[B, L, d]`: the gradient passes where the input was positive.
  Tensor3 backward(const Tensor3& dy);

 private:
  Tensor3 y_;  // forward's output: its positive entries are the ones the gradient passes
};

}  // namespace tfm
