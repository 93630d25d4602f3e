// Exercise, chapter 07: the position-wise feed-forward network, forward and backward.
// Check it with: ./tutorial exercise ffn_backward
//
//   hidden = max(0, x W1ᵀ + b1)   [N, d_ff]     (ReLU)
//   y      = hidden W2ᵀ + b2      [N, d_model]
// Weights as nn.Linear stores them: W1 [d_ff, d_model], W2 [d_model, d_ff].
// Backward: from grad_y, the gradients of x and of the four parameters. The ReLU passes a
// gradient only where its input was positive.
//
// Shapes: x [N, d_model] (every position of the batch: B * L rows), b1 [d_ff], b2 [d_model],
// grad_y [N, d_model] -> grad_x [N, d_model], grad_w1 [d_ff, d_model], grad_b1 [d_ff],
// grad_w2 [d_model, d_ff], grad_b2 [d_model].
#include "exercise/tensor.hpp"

namespace ex {

Tensor ffn_forward(const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& w2,
                   const Tensor& b2) {
  return {};
}

void ffn_backward(const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& w2,
                  const Tensor& grad_y, Tensor& grad_x, Tensor& grad_w1, Tensor& grad_b1, Tensor& grad_w2,
                  Tensor& grad_b2) {
}

}  // namespace ex
