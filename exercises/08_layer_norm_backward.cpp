// Exercise, chapter 08: layer normalisation, forward and backward.
// Check it with: ./tutorial exercise layer_norm_backward
//
// For each row x (d entries):
//   mu = mean(x), var = mean((x - mu)^2)   (divided by d, not d - 1)
//   x_hat = (x - mu) / sqrt(var + eps),     y = weight * x_hat + bias
// Backward: from grad_y, return grad_x, grad_weight (summed over rows) and grad_bias (summed over rows).
// mu and var depend on every entry of the row: grad_x has more than one term.
//
// Shapes: x [N, d], weight [d], bias [d], grad_y [N, d] -> y [N, d];
// grad_x [N, d], grad_weight [d], grad_bias [d].
#include "exercise/tensor.hpp"

namespace ex {

Tensor layer_norm_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, float eps) {
  return {};
}

void layer_norm_backward(const Tensor& x, const Tensor& weight, const Tensor& grad_y, float eps,
                         Tensor& grad_x, Tensor& grad_weight, Tensor& grad_bias) {
}

}  // namespace ex
