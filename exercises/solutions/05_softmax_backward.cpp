// Solution of the exercise softmax_backward (chapter 05). Try the exercise first.
#include "exercise/tensor.hpp"

namespace ex {

Tensor softmax_backward(const Tensor& y, const Tensor& d_y) {
  Tensor d_x(y.shape());
  for (std::size_t r = 0; r < y.dim(0); ++r) {
    // d_x_i = sum_j d_y_j y_j ([i == j] - y_i) = y_i (d_y_i - sum_j d_y_j y_j)
    float row_sum = 0.0f;
    for (std::size_t j = 0; j < y.dim(1); ++j) row_sum += d_y(r, j) * y(r, j);
    for (std::size_t i = 0; i < y.dim(1); ++i) d_x(r, i) = y(r, i) * (d_y(r, i) - row_sum);
  }
  return d_x;
}

}  // namespace ex
