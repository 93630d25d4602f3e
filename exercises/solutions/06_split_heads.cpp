// Solution of the exercise split_heads (chapter 06). Try the exercise first.
#include "exercise/tensor.hpp"

namespace ex {

Tensor split_heads(const Tensor& x, std::size_t n_heads) {
  const std::size_t B = x.dim(0), L = x.dim(1), d_k = x.dim(2) / n_heads;
  Tensor out({B, n_heads, L, d_k});
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < n_heads; ++h)
      for (std::size_t l = 0; l < L; ++l)
        for (std::size_t c = 0; c < d_k; ++c) out(b, h, l, c) = x(b, l, h * d_k + c);
  return out;
}

Tensor concat_heads(const Tensor& x) {
  const std::size_t B = x.dim(0), H = x.dim(1), L = x.dim(2), d_k = x.dim(3);
  Tensor out({B, L, H * d_k});
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t l = 0; l < L; ++l)
        for (std::size_t c = 0; c < d_k; ++c) out(b, l, h * d_k + c) = x(b, h, l, c);
  return out;
}

}  // namespace ex
