#include "tfm/layers/dropout.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "tfm/core/no_grad.hpp"

namespace tfm {

Dropout::Dropout(float p, std::uint64_t seed) : p_(p), rng_(seed) {
  if (!(p >= 0.0f && p < 1.0f))
    throw std::invalid_argument("Dropout: p must be in [0, 1), got " + std::to_string(p));
}

// [dropout forward]
Tensor3 Dropout::forward(Tensor3&& x) {
  // x: [B, L, d]  ->  y: [B, L, d], written over x (moved in: no copy, no new memory)
  if (!grad_enabled() && (!training_ || p_ == 0.0f)) return std::move(x);  // keeps nothing
  shape_ = x.shape();
  if (!training_ || p_ == 0.0f) {
    masked_ = false;  // identity: backward passes dy through unchanged
    mask_ = ByteTensor3();
    return std::move(x);
  }
  // Keep each entry with probability 1 - p and scale the kept ones by 1/(1-p): the expected
  // value of y equals x, which is why evaluation can simply skip dropout.
  // The coin of an entry is a 16-bit uniform u in [0, 65536), kept if u >= p * 65536 (so
  // P(keep) = 1 - p to within 1/131072).
  // The entries are dealt out in blocks of kBlock, each with its own generator seeded from one
  // draw of the module's generator: the blocks can be drawn on different threads, and the mask
  // depends only on the seed, never on the number of threads.
  constexpr std::size_t kBlock = 1 << 14;
  const float scale = 1.0f / (1.0f - p_);
  const auto threshold = static_cast<std::uint32_t>(std::lround(p_ * 65536.0f));
  const std::uint64_t forward_seed = rng_.next_u64();
  const std::size_t n = x.size(), blocks = (n + kBlock - 1) / kBlock;
  masked_ = true;
  mask_.resize(x.shape());  // reuses the last mask's memory while the shape stays the same
  std::uint8_t* m = mask_.data();
  float* values = x.data();
#pragma omp parallel for if (blocks > 1)
  for (std::size_t block = 0; block < blocks; ++block) {
    const std::size_t begin = block * kBlock, end = std::min(n, begin + kBlock);
    Rng(forward_seed + block).coins(threshold, m + begin, end - begin);
    for (std::size_t i = begin; i < end; ++i) values[i] = m[i] ? values[i] * scale : 0.0f;
  }
  return std::move(x);
}
// [dropout forward]

void Dropout::skip(std::size_t forwards) {
  for (std::size_t i = 0; i < forwards; ++i) rng_.next_u64();  // forward draws one seed a call
}

// [dropout backward]
Tensor3 Dropout::backward(Tensor3&& grad_y) {
  // grad_y: [B, L, d]  ->  grad_x: [B, L, d], written over grad_y; y = x * mask / (1-p), so
  // grad_x = grad_y * mask / (1-p) with forward's mask.
  require(grad_y.shape() == shape_, "Dropout backward",
          "grad_y has shape " + shape_string(grad_y.shape()) + ", but forward's input had " +
              shape_string(shape_));
  if (!masked_) return std::move(grad_y);
  const float scale = 1.0f / (1.0f - p_);
  const std::uint8_t* m = mask_.data();
  float* g = grad_y.data();
  const std::size_t n = grad_y.size();
#pragma omp parallel for simd if (n > (1 << 16))
  for (std::size_t i = 0; i < n; ++i) g[i] = m[i] ? g[i] * scale : 0.0f;
  return std::move(grad_y);
}
// [dropout backward]

}  // namespace tfm
