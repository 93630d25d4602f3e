// Solution of the exercise embedding (chapter 09). Try the exercise first.
#include <cmath>

#include "exercise/tensor.hpp"

namespace ex {

Tensor embed(const Ids& ids, const Tensor& table, const Tensor& pe) {
  const std::size_t B = ids.dim(0), L = ids.dim(1), d = table.dim(1);
  const float scale = std::sqrt(float(d));
  Tensor x({B, L, d});
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t l = 0; l < L; ++l)
      for (std::size_t c = 0; c < d; ++c) x(b, l, c) = table(ids(b, l), c) * scale + pe(l, c);
  return x;
}

Tensor embed_backward(const Ids& ids, const Tensor& grad_x, std::size_t vocab_size) {
  const std::size_t B = ids.dim(0), L = ids.dim(1), d = grad_x.dim(2);
  const float scale = std::sqrt(float(d));
  Tensor grad_table({vocab_size, d});
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t l = 0; l < L; ++l)
      for (std::size_t c = 0; c < d; ++c) grad_table(ids(b, l), c) += grad_x(b, l, c) * scale;
  return grad_table;
}

}  // namespace ex
