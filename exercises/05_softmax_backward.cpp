// Exercise, chapter 05: the backward of the row-wise softmax.
// Check it with: ./tutorial exercise softmax_backward
//
// Forward, for each row r:   y[r, j] = exp(x[r, j]) / sum_k exp(x[r, k])
// Its Jacobian:              dy[r, j] / dx[r, i] = y[r, j] * ([i == j] - y[r, i])
// Return dL/dx from y and dL/dy (the chain rule through that Jacobian).
//
// Shapes: y [rows, cols], grad_y [rows, cols] -> grad_x [rows, cols].
#include "exercise/tensor.hpp"

namespace ex {

Tensor softmax_backward(const Tensor& y, const Tensor& grad_y) {
  return {};
}

}  // namespace ex
