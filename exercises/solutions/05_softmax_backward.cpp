// Solution of the exercise softmax_backward (chapter 05). Try the exercise first.
#include "exercise/tensor.hpp"

namespace ex {

Tensor softmax_backward(const Tensor& y, const Tensor& grad_y) {
  Tensor grad_x(y.shape());
  for (std::size_t r = 0; r < y.dim(0); ++r) {
    // grad_x_i = sum_j grad_y_j y_j ([i == j] - y_i) = y_i (grad_y_i - sum_j grad_y_j y_j)
    float row_sum = 0.0f;
    for (std::size_t j = 0; j < y.dim(1); ++j) row_sum += grad_y(r, j) * y(r, j);
    for (std::size_t i = 0; i < y.dim(1); ++i) grad_x(r, i) = y(r, i) * (grad_y(r, i) - row_sum);
  }
  return grad_x;
}

}  // namespace ex
