/// \file reductions.hpp
/// \brief Engine (not a lesson): sums and maxima over one row of floats, vectorised. The layers
/// call them where their formula has a Σ or a max over a row (softmax, LayerNorm).
///
/// A plain loop `for (j) sum += x[j]` is a chain of n dependent additions: the compiler may not
/// reorder them, since floating-point addition is not associative. These loops tell it that it may
/// (`#pragma omp simd reduction`): it keeps several partial sums in one vector register and adds
/// them at the end, a tree of additions instead of a chain.
#pragma once

#include <cstddef>

namespace tfm {

/// The largest of x[0] .. x[n - 1] (n >= 1; a NaN is kept only where std::max would keep it).
float max_of(const float* x, std::size_t n);
/// Σ x[j], accumulated in double.
double sum_in_double(const float* x, std::size_t n);
/// Σ (x[j] - centre)², accumulated in double.
double sum_squared_deviations(const float* x, double centre, std::size_t n);
/// Σ a[j] b[j], in float.
float dot(const float* a, const float* b, std::size_t n);
/// Σ p[j] and Σ p[j] c[j] with p[j] = a[j] b[j] (a product in float), accumulated in double:
/// what LayerNorm's backward needs of each row.
void sums_of_products(const float* a, const float* b, const float* c, std::size_t n, double& sum_p,
                      double& sum_pc);

}  // namespace tfm
