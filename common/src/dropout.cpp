#include "tfm/dropout.hpp"

#include <stdexcept>
#include <string>

namespace tfm {

Dropout::Dropout(float p, std::uint64_t seed) : p_(p), rng_(seed) {
  if (!(p >= 0.0f && p < 1.0f))
    throw std::invalid_argument("Dropout: p must be in [0, 1), got " + std::to_string(p));
}

// [dropout forward]
Tensor3 Dropout::forward(const Tensor3& x) {
  // x: [B, L, d]  ->  y: [B, L, d]
  shape_ = x.shape();
  if (!training_ || p_ == 0.0f) {
    masked_ = false;  // identity: backward passes dy through unchanged
    mask_ = Tensor3();
    return x;
  }
  // Keep each entry with probability 1 - p (uniform() is in [0, 1), so P(u >= p) = 1 - p) and
  // scale the kept ones by 1/(1-p): the expected value of y equals x, which is why evaluation
  // can simply skip dropout.
  const float scale = 1.0f / (1.0f - p_);
  masked_ = true;
  mask_ = Tensor3::from_shape(x.shape());
  Tensor3 y = Tensor3::from_shape(x.shape());
  float* m = mask_.data();
  const float* in = x.data();
  float* out = y.data();
  for (std::size_t i = 0; i < x.size(); ++i) {
    m[i] = rng_.uniform() >= p_ ? scale : 0.0f;
    out[i] = in[i] * m[i];
  }
  return y;
}
// [dropout forward]

// [dropout backward]
Tensor3 Dropout::backward(const Tensor3& dy) {
  // dy: [B, L, d]  ->  dx: [B, L, d]; y = x * mask, so dx = dy * mask with forward's mask.
  require(dy.shape() == shape_, "Dropout backward",
          "dy has shape " + shape_string(dy.shape()) + ", but forward's input had " +
              shape_string(shape_));
  if (!masked_) return dy;
  Tensor3 dx = Tensor3::from_shape(dy.shape());
  const float* m = mask_.data();
  const float* g = dy.data();
  float* out = dx.data();
  for (std::size_t i = 0; i < dy.size(); ++i) out[i] = g[i] * m[i];
  return dx;
}
// [dropout backward]

}  // namespace tfm
