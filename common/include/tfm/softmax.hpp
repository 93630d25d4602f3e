/// \file softmax.hpp
/// \brief Row-wise softmax and its backward (the Jacobian-vector product), as plain loops.
///
/// Attention turns every row of scores into a probability distribution over the keys:
/// \f$ y_j = e^{x_j - m} / \sum_k e^{x_k - m} \f$ with \f$ m = \max_k x_k \f$. Subtracting
/// the row maximum changes nothing mathematically but keeps every exponent \f$ \le 0 \f$,
/// so nothing overflows (scores of -1e9 from the mask simply become 0).
#pragma once

#include <cstddef>

namespace tfm {

/// Softmax of each row of a contiguous row-major `[rows, cols]` buffer: `x` -> `y`.
/// `x` and `y` may be the same buffer (in-place).
void softmax_rows(const float* x, float* y, std::size_t rows, std::size_t cols);

/// Backward of softmax_rows, given its output `y` and the upstream gradient `dy`
/// (both `[rows, cols]`): per row, `dx = y * (dy - sum_j(dy_j * y_j))`.
/// `dx` may alias `dy`.
void softmax_rows_backward(const float* y, const float* dy, float* dx, std::size_t rows,
                           std::size_t cols);

}  // namespace tfm
