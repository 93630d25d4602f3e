#include "tfm/engine/fast_exp.hpp"

namespace tfm {

float exp_shifted(const float* x, float shift, float* y, std::size_t n) {
  float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
  for (std::size_t j = 0; j < n; ++j) {
    y[j] = exp_nonpositive(x[j] - shift);
    sum += y[j];
  }
  return sum;
}

}  // namespace tfm
