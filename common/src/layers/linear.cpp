#include "tfm/layers/linear.hpp"

#include <cmath>

#include "tfm/core/matmul.hpp"
#include "tfm/core/no_grad.hpp"

namespace tfm {

namespace {

// sum [n] += Σ over the B·L rows of x [B, L, n]
void add_row_sums(Tensor1& sum, const Tensor3& x) {
  const std::size_t rows = x.shape(0) * x.shape(1), n = x.shape(2);
  float* s = sum.data();
  for (std::size_t r = 0; r < rows; ++r) {
    const float* row = x.data() + r * n;
    for (std::size_t j = 0; j < n; ++j) s[j] += row[j];
  }
}

}  // namespace

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
Tensor3 Linear::forward(Tensor3&& x) {
  // x [B, L, in] -> y [B, L, out]: y = x Wᵀ + b, every position one row of a [B·L, in] matrix
  check_input(x);
  Tensor3 y = linear(x, weight.value, bias.value);
  if (grad_enabled()) {  // backward needs x for dW = dyᵀ x
    x_ = std::move(x);
    has_forward_ = true;
  }
  return y;
}

Tensor3 Linear::forward(const Tensor3& x) {
  if (grad_enabled()) return forward(copy_of(x));  // backward keeps a copy of x
  check_input(x);
  return linear(x, weight.value, bias.value);  // inference: nothing to keep, nothing copied
}
// [linear forward]

void Linear::check_input(const Tensor3& x) const {
  require_shape("Linear", "input", x, {kAnyExtent, kAnyExtent, in_}, "(batch, len, in_features)");
}

// [linear backward]
Tensor3 Linear::backward(const Tensor3& grad_y) {
  // grad_y [B, L, out] -> grad_x [B, L, in]
  require(has_forward_, "Linear backward", "called before forward");
  require_shape("Linear backward", "grad_y", grad_y, {x_.shape(0), x_.shape(1), out_},
                "(batch, len, out_features)");
  matmul_accumulate(weight.grad, grad_y, x_, Op::kTransposed, Op::kPlain);  // dW += dyᵀ x
  if (bias.present()) add_row_sums(bias.grad, grad_y);                      // db += Σ_rows dy
  return matmul(grad_y, weight.value);                                      // dx = dy W
}
// [linear backward]

void Linear::collect_parameters(ParameterList& list) {
  list.add("weight", weight);
  list.add("bias", bias);
}

}  // namespace tfm
