/// \file softmax.hpp
/// \brief Chapter 05: row-wise softmax and its backward (the Jacobian-vector product), as plain loops.
///
/// Attention turns every row of scores into a probability distribution over the keys:
/// \f$ y_j = e^{x_j - m} / \sum_k e^{x_k - m} \f$ with \f$ m = \max_k x_k \f$. Subtracting
/// the row maximum changes nothing mathematically but keeps every exponent \f$ \le 0 \f$,
/// so nothing overflows (scores of -1e9 from the mask simply become 0).
#pragma once

#include <cstddef>

#include "tfm/core/tensor.hpp"

namespace tfm {

/// Softmax of each row of a contiguous row-major `[rows, cols]` buffer: `x` -> `y`.
/// `x` and `y` may be the same buffer (in-place).
void softmax_rows(const float* x, float* y, std::size_t rows, std::size_t cols);

/// Backward of softmax_rows, given its output `y` and the upstream gradient `grad_y`
/// (both `[rows, cols]`): per row, `grad_x = y * (grad_y - sum_j(dy_j * y_j))`.
/// `grad_x` may alias `grad_y`.
void softmax_rows_backward(const float* y, const float* grad_y, float* grad_x, std::size_t rows,
                           std::size_t cols);

/// Softmax over the last axis of `x` `[B, H, Lq, Lk]` (every row of attention scores), computed
/// in place in the tensor passed in, which is returned.
inline Tensor4 softmax_rows(Tensor4 x) {
  softmax_rows(x.data(), x.data(), x.size() / x.shape(3), x.shape(3));
  return x;
}

/// Backward of the Tensor4 softmax_rows: `y` its output, `grad_y` the upstream gradient (both
/// `[B, H, Lq, Lk]`) -> grad_x, computed in place in the `grad_y` passed in.
inline Tensor4 softmax_rows_backward(const Tensor4& y, Tensor4 grad_y) {
  require(
      y.shape() == grad_y.shape(), "softmax_rows_backward",
      "y " + shape_string(y.shape()) + " and grad_y " + shape_string(grad_y.shape()) + " differ");
  softmax_rows_backward(y.data(), grad_y.data(), grad_y.data(), y.size() / y.shape(3), y.shape(3));
  return grad_y;
}

}  // namespace tfm
