#include "tfm/layers/relu.hpp"

#include <utility>

#include "tfm/core/no_grad.hpp"

namespace tfm {

// [relu forward]
Tensor3 ReLU::forward(Tensor3&& x) {
  // x: [B, L, d]  ->  y: [B, L, d], in x's memory
  float* values = x.data();
  const std::size_t n = x.size();
  if (!grad_enabled()) {  // inference: the output alone
#pragma omp parallel for simd if (n > (1 << 16))
    for (std::size_t i = 0; i < n; ++i) values[i] = values[i] > 0.0f ? values[i] : 0.0f;
    return std::move(x);
  }
  // Training: backward needs where x was positive, so this loop also writes that mask (the
  // inference loop above skips the write).
  positive_.resize(x.shape());  // reuses the last step's memory while the shape stays the same
  std::uint8_t* positive = positive_.data();
#pragma omp parallel for simd if (n > (1 << 16))
  for (std::size_t i = 0; i < n; ++i) {
    positive[i] = values[i] > 0.0f;
    values[i] = positive[i] ? values[i] : 0.0f;
  }
  return std::move(x);
}
// [relu forward]

// [relu backward]
Tensor3 ReLU::backward(Tensor3&& grad_y) {
  // grad_y: [B, L, d]  ->  grad_x: [B, L, d], written over grad_y
  // d max(0, x)/dx is 1 for x > 0 and 0 for x < 0; at x = 0 we take 0, as PyTorch does.
  require(grad_y.shape() == positive_.shape(), "ReLU backward",
          "grad_y has shape " + shape_string(grad_y.shape()) + ", but forward produced " +
              shape_string(positive_.shape()));
  const std::uint8_t* positive = positive_.data();
  float* g = grad_y.data();
  const std::size_t n = grad_y.size();
#pragma omp parallel for simd if (n > (1 << 16))
  for (std::size_t i = 0; i < n; ++i) g[i] = positive[i] ? g[i] : 0.0f;
  return std::move(grad_y);
}
// [relu backward]

}  // namespace tfm
