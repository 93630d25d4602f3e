#include "tfm/layers/layer_norm.hpp"

#include <cmath>

#include "tfm/core/no_grad.hpp"
#include "tfm/core/trace.hpp"
#include "tfm/engine/reductions.hpp"

namespace tfm {

namespace {
constexpr trace::Component traced("LayerNorm");
}  // namespace

LayerNorm::LayerNorm(std::size_t d_model, float eps) : d_(d_model), eps_(eps) {
  require(d_model > 0, "LayerNorm", "d_model must be positive");
  require(eps > 0.0f, "LayerNorm", "eps must be positive (it keeps 1/σ finite on constant rows)");
  weight = Param<1>::zeros({d_});
  weight.value.fill(1.0f);
  bias = Param<1>::zeros({d_});
}

// [layer norm forward]
Tensor3 LayerNorm::forward(const Tensor3& x) {
  // x: [B, L, d]  ->  y: [B, L, d]; every position (row) is normalised on its own.
  require_shape("LayerNorm", "input", x, {kAnyExtent, kAnyExtent, d_}, "(batch, len, d_model)");
  const std::size_t rows = x.shape(0) * x.shape(1);
  // Backward needs x̂ and 1/σ; inference (NoGrad) writes them to scratch and keeps nothing.
  Tensor3 scratch_x_hat;
  std::vector<float> scratch_inv_std;
  Tensor3& x_hat_all = grad_enabled() ? x_hat_ : scratch_x_hat;
  std::vector<float>& inv_std_all = grad_enabled() ? inv_std_ : scratch_inv_std;
  x_hat_all.resize(x.shape());  // reuses the kept memory while the shape stays the same
  inv_std_all.resize(rows);
  Tensor3 y = Tensor3::from_shape(x.shape());
  const float* w = weight.value.data();
  const float* b = bias.value.data();
  // Rows are independent: the threads share them out.
#pragma omp parallel for if (rows * d_ > (1 << 15))
  for (std::size_t r = 0; r < rows; ++r) {
    const float* in = x.data() + r * d_;
    float* x_hat = x_hat_all.data() + r * d_;
    float* out = y.data() + r * d_;
    // Two passes, accumulated in double: the mean first, then the mean squared deviation from
    // it. The one-pass shortcut E[x²] - E[x]² cancels catastrophically when the row sits far
    // from zero, and a float mean of a row near 1000 is off by ~1e-4, which x̂ would inherit.
    const double mean = sum_in_double(in, d_) / static_cast<double>(d_);
    const double variance =
        sum_squared_deviations(in, mean, d_) / static_cast<double>(d_);  // biased, as PyTorch
    const double inv_std = 1.0 / std::sqrt(variance + static_cast<double>(eps_));
    inv_std_all[r] = static_cast<float>(inv_std);
    for (std::size_t j = 0; j < d_; ++j) {
      x_hat[j] = static_cast<float>((in[j] - mean) * inv_std);
      out[j] = w[j] * x_hat[j] + b[j];
    }
  }
  traced(y, "normalise over d_model", "y", "batch, len, d_model");
  return y;
}
// [layer norm forward]

// [layer norm backward]
Tensor3 LayerNorm::backward(const Tensor3& grad_y) {
  // grad_y: [B, L, d]  ->  grad_x: [B, L, d]
  require(x_hat_.size() > 0, "LayerNorm backward", "called before forward");
  require_shape("LayerNorm backward", "grad_y", grad_y, {x_hat_.shape(0), x_hat_.shape(1), d_},
                "(batch, len, d_model)");
  const std::size_t rows = grad_y.shape(0) * grad_y.shape(1);
  const float* w = weight.value.data();
  float* grad_w = weight.grad.data();
  float* grad_b = bias.grad.data();
  Tensor3 grad_x = Tensor3::from_shape(grad_y.shape());
  const double inv_d = 1.0 / static_cast<double>(d_);
  // y = w ⊙ x̂ + b: the parameters see grad_y directly, summed over all rows.
  for (std::size_t r = 0; r < rows; ++r) {
    const float* grad_y_row = grad_y.data() + r * d_;
    const float* x_hat = x_hat_.data() + r * d_;
    for (std::size_t j = 0; j < d_; ++j) {
      grad_w[j] += grad_y_row[j] * x_hat[j];
      grad_b[j] += grad_y_row[j];
    }
  }
  // x̂ sees grad_x̂ = grad_y ⊙ w. Every row's grad_x depends on that row alone: the threads share
  // the rows.
#pragma omp parallel for if (rows * d_ > (1 << 15))
  for (std::size_t r = 0; r < rows; ++r) {
    const float* grad_y_row = grad_y.data() + r * d_;
    const float* x_hat = x_hat_.data() + r * d_;
    float* grad_x_row = grad_x.data() + r * d_;
    // x̂ = (x - μ)/σ depends on x three ways (directly, through μ, through σ); pushing grad_x̂
    // back through all three gives grad_x = (1/σ) (grad_x̂ - mean(grad_x̂) - x̂ mean(grad_x̂ ⊙ x̂)).
    // The two means remove exactly the directions that normalisation cannot change: a shift and a
    // rescaling.
    double sum_grad_x_hat = 0.0, sum_grad_x_hat_x_hat = 0.0;
    sums_of_products(grad_y_row, w, x_hat, d_, sum_grad_x_hat,
                     sum_grad_x_hat_x_hat);  // grad_x̂ = grad_y ⊙ w
    const float mean_grad_x_hat = static_cast<float>(sum_grad_x_hat * inv_d);
    const float mean_grad_x_hat_x_hat = static_cast<float>(sum_grad_x_hat_x_hat * inv_d);
    const float inv_std = inv_std_[r];
    for (std::size_t j = 0; j < d_; ++j)
      grad_x_row[j] =
          inv_std * (grad_y_row[j] * w[j] - mean_grad_x_hat - x_hat[j] * mean_grad_x_hat_x_hat);
  }
  traced(grad_x, "backward normalise (grad_weight, grad_bias summed over rows)", "grad_x",
         "batch, len, d_model");
  return grad_x;
}
// [layer norm backward]

void LayerNorm::collect_parameters(ParameterList& list) {
  list.add("weight", weight);
  list.add("bias", bias);
}

}  // namespace tfm
