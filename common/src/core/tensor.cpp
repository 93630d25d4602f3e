#include "tfm/core/tensor.hpp"

namespace tfm {

void add_into(Tensor3& sum, const Tensor3& term) {
  require(
      sum.shape() == term.shape(), "add_into",
      "sum " + shape_string(sum.shape()) + " and term " + shape_string(term.shape()) + " differ");
  float* s = sum.data();
  const float* t = term.data();
  const std::size_t n = sum.size();
#pragma omp parallel for simd if (n > (1 << 16))
  for (std::size_t i = 0; i < n; ++i) s[i] += t[i];
}

Tensor3 copy_of(const Tensor3& x) {
  Tensor3 copy = Tensor3::from_shape(x.shape());
  const float* from = x.data();
  float* to = copy.data();
  const std::size_t n = x.size();
#pragma omp parallel for simd if (n > (1 << 16))
  for (std::size_t i = 0; i < n; ++i) to[i] = from[i];
  return copy;
}

Tensor4 scaled(Tensor4 x, float factor) {
  float* v = x.data();
  const std::size_t n = x.size();
#pragma omp parallel for simd if (n > (1 << 16))
  for (std::size_t i = 0; i < n; ++i) v[i] *= factor;
  return x;
}

}  // namespace tfm
