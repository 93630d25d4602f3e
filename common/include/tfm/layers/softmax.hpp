/// \file softmax.hpp
/// \brief Chapter 05: row-wise softmax and its backward (the Jacobian-vector product), as plain loops.
///
/// Attention turns every row of scores into a probability distribution over the keys:
/// \f$ y_j = e^{x_j - m} / \sum_k e^{x_k - m} \f$ with \f$ m = \max_k x_k \f$. Subtracting
/// the row maximum changes nothing mathematically but keeps every exponent \f$ \le 0 \f$,
/// so nothing overflows (scores of -1e9 from the mask simply become 0).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "tfm/core/tensor.hpp"

namespace tfm {

/// e^x for x <= 0, the only exponents softmax takes (x - max). std::exp is a library call per
/// element that g++ will not vectorise without -ffast-math; this is the same arithmetic written
/// so that it can (16 lanes at a time with AVX-512), within 2 ulp of e^x (tested):
///   e^x = 2^n · e^r  with n = round(x / ln 2), r = x - n ln 2 in [-ln2/2, ln2/2],
/// e^r by its Taylor series to r^7 (the next term is below 2^-27 there), 2^n by writing n into
/// the float's exponent bits. Below -87, e^x < 1.7e-38 is nothing beside the row maximum's e^0 = 1:
/// it is returned as 0, as the -1e9 of a masked score must become. NaN stays NaN.
inline float exp_nonpositive(float x) {
  constexpr float kLog2e = 1.44269504f, kLn2Hi = 0.693145752f, kLn2Lo = 1.42860677e-6f;
  const float clamped = std::max(x, -87.0f);
  const float n = std::floor(clamped * kLog2e + 0.5f);
  const float r = (clamped - n * kLn2Hi) - n * kLn2Lo;  // ln 2 in two parts: r stays exact
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const std::int32_t bits = (static_cast<std::int32_t>(n) + 127) << 23;  // 2^n, n in [-126, 0]
  float two_to_n;
  std::memcpy(&two_to_n, &bits, sizeof two_to_n);
  return x < -87.0f ? 0.0f : p * two_to_n;
}

/// Softmax of each row of a contiguous row-major `[rows, cols]` buffer: `x` -> `y`.
/// `x` and `y` may be the same buffer (in-place).
void softmax_rows(const float* x, float* y, std::size_t rows, std::size_t cols);

/// Backward of softmax_rows, given its output `y` and the upstream gradient `dy`
/// (both `[rows, cols]`): per row, `dx = y * (dy - sum_j(dy_j * y_j))`.
/// `dx` may alias `dy`.
void softmax_rows_backward(const float* y, const float* dy, float* dx, std::size_t rows,
                           std::size_t cols);

/// Softmax over the last axis of `x` `[B, H, Lq, Lk]` (every row of attention scores), computed
/// in place in the tensor passed in, which is returned.
inline Tensor4 softmax_rows(Tensor4 x) {
  softmax_rows(x.data(), x.data(), x.size() / x.shape(3), x.shape(3));
  return x;
}

/// Backward of the Tensor4 softmax_rows: `y` its output, `dy` the upstream gradient (both
/// `[B, H, Lq, Lk]`) -> dx, computed in place in the `dy` passed in.
inline Tensor4 softmax_rows_backward(const Tensor4& y, Tensor4 dy) {
  require(y.shape() == dy.shape(), "softmax_rows_backward",
          "y " + shape_string(y.shape()) + " and dy " + shape_string(dy.shape()) + " differ");
  softmax_rows_backward(y.data(), dy.data(), dy.data(), y.size() / y.shape(3), y.shape(3));
  return dy;
}

}  // namespace tfm
