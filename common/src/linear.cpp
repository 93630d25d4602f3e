#include "tfm/linear.hpp"

#include <cmath>

#include "tfm/matmul.hpp"

namespace tfm {

Linear::Linear(std::size_t in_features, std::size_t out_features, bool bias, Rng& rng)
    : in_(in_features), out_(out_features) {
  weight = Param<2>::zeros({out_, in_});
  const float bound = 1.0f / std::sqrt(static_cast<float>(in_));
  rng.fill_uniform(weight.value, -bound, bound);
  if (bias) {
    this->bias = Param<1>::zeros({out_});
    rng.fill_uniform(this->bias.value, -bound, bound);
  }
}

// [linear forward]
Tensor3 Linear::forward(std::shared_ptr<const Tensor3> kept_x) {
  // x: [B, L, in]  ->  y: [B, L, out]; every position is one row of an [B*L, in] matrix.
  require(kept_x != nullptr, "Linear", "forward given no input");
  const Tensor3& x = *kept_x;
  require_shape("Linear", "input", x, {kAnyExtent, kAnyExtent, in_}, "(batch, len, in_features)");
  x_ = std::move(kept_x);  // backward needs x for dW = dyᵀ x
  const std::size_t rows = x.shape(0) * x.shape(1);
  Tensor3 y = Tensor3::from_shape({x.shape(0), x.shape(1), out_});
  if (bias.present()) {
    for (std::size_t r = 0; r < rows; ++r)
      std::copy(bias.value.begin(), bias.value.end(), y.data() + r * out_);
  }
  // y = x Wᵀ (+ the bias already in y)
  gemm(Op::kPlain, Op::kTransposed, rows, out_, in_, 1.0f, x.data(), in_, weight.value.data(), in_,
       bias.present() ? 1.0f : 0.0f, y.data(), out_);
  return y;
}
// [linear forward]

Tensor3 Linear::forward(const Tensor3& x) { return forward(std::make_shared<const Tensor3>(x)); }

// [linear backward]
Tensor3 Linear::backward(const Tensor3& dy) {
  // dy: [B, L, out]  ->  dx: [B, L, in]
  require(x_ != nullptr, "Linear backward", "called before forward");
  const Tensor3& x = *x_;
  require_shape("Linear backward", "dy", dy, {x.shape(0), x.shape(1), out_},
                "(batch, len, out_features)");
  const std::size_t rows = dy.shape(0) * dy.shape(1);
  // dW [out, in] += dyᵀ [out, rows] · x [rows, in]
  gemm(Op::kTransposed, Op::kPlain, out_, in_, rows, 1.0f, dy.data(), out_, x.data(), in_, 1.0f,
       weight.grad.data(), in_);
  // db [out] += Σ over rows of dy
  if (bias.present()) {
    float* db = bias.grad.data();
    for (std::size_t r = 0; r < rows; ++r) {
      const float* row = dy.data() + r * out_;
      for (std::size_t j = 0; j < out_; ++j) db[j] += row[j];
    }
  }
  // dx [rows, in] = dy [rows, out] · W [out, in]
  Tensor3 dx = Tensor3::from_shape({dy.shape(0), dy.shape(1), in_});
  gemm(Op::kPlain, Op::kPlain, rows, in_, out_, 1.0f, dy.data(), out_, weight.value.data(), in_, 0.0f,
       dx.data(), in_);
  return dx;
}
// [linear backward]

void Linear::collect_parameters(ParameterList& list) {
  list.add("weight", weight);
  list.add("bias", bias);
}

}  // namespace tfm
