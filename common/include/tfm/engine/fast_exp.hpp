/// \file fast_exp.hpp
/// \brief Engine (not a lesson): the exponential softmax needs, written so that the compiler can
/// vectorise it. Chapter 05's softmax calls it; the arithmetic is e^x all the same.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace tfm {

/// e^x for x <= 0, the only exponents softmax takes (x - max). std::exp is a library call per
/// element that g++ will not vectorise without -ffast-math; this is the same arithmetic written
/// so that it can (16 lanes at a time with AVX-512), within 2 ulp of e^x (tested):
///   e^x = 2^n · e^r  with n = round(x / ln 2), r = x - n ln 2 in [-ln2/2, ln2/2],
/// e^r by its Taylor series to r^7 (the next term is below 2^-27 there), 2^n by writing n into
/// the float's exponent bits. n is rounded by adding and subtracting 1.5 · 2^23 (a float that
/// large has no fraction bits): std::floor(t + 0.5) would do, but g++ leaves a loop that calls
/// std::floor scalar unless -fno-trapping-math is given.
/// Below -87, e^x < 1.7e-38 is nothing beside the row maximum's e^0 = 1: it is returned as 0, as
/// the -1e9 of a masked score must become. NaN stays NaN.
inline float exp_nonpositive(float x) {
  constexpr float kLog2e = 1.44269504f, kLn2Hi = 0.693145752f, kLn2Lo = 1.42860677e-6f;
  const float clamped = std::max(x, -87.0f);
  constexpr float kRound = 12582912.0f;  // 1.5 · 2^23
  const float n = (clamped * kLog2e + kRound) - kRound;
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

/// `y[j] = exp_nonpositive(x[j] - shift)` for j < n, vectorised; returns the sum of the y[j]
/// (in float, summed in several lanes at once). With `shift` the maximum of x, every exponent is
/// at most 0, as exp_nonpositive needs. `x` and `y` may be the same buffer.
float exp_shifted(const float* x, float shift, float* y, std::size_t n);

}  // namespace tfm
