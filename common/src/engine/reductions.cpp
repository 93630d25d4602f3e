#include "tfm/engine/reductions.hpp"

namespace tfm {

float max_of(const float* x, std::size_t n) {
  float max = x[0];
  // Written as a comparison, not std::max(max, x[j]): this operand order is the one a vector
  // max instruction implements (a NaN in x[j] is skipped either way), so g++ vectorises it.
#pragma omp simd reduction(max : max)
  for (std::size_t j = 1; j < n; ++j) max = x[j] > max ? x[j] : max;
  return max;
}

double sum_in_double(const float* x, std::size_t n) {
  double sum = 0.0;
#pragma omp simd reduction(+ : sum)
  for (std::size_t j = 0; j < n; ++j) sum += x[j];
  return sum;
}

double sum_squared_deviations(const float* x, double centre, std::size_t n) {
  double squares = 0.0;
#pragma omp simd reduction(+ : squares)
  for (std::size_t j = 0; j < n; ++j) {
    const double deviation = x[j] - centre;
    squares += deviation * deviation;
  }
  return squares;
}

float dot(const float* a, const float* b, std::size_t n) {
  float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
  for (std::size_t j = 0; j < n; ++j) sum += a[j] * b[j];
  return sum;
}

void sums_of_products(const float* a, const float* b, const float* c, std::size_t n, double& sum_p,
                      double& sum_pc) {
  double p_sum = 0.0, pc_sum = 0.0;
#pragma omp simd reduction(+ : p_sum, pc_sum)
  for (std::size_t j = 0; j < n; ++j) {
    const float p = a[j] * b[j];
    p_sum += p;
    pc_sum += static_cast<double>(p) * c[j];
  }
  sum_p = p_sum;
  sum_pc = pc_sum;
}

}  // namespace tfm
