// Solution of the exercise layer_norm_backward (chapter 08). Try the exercise first.
#include <cmath>

#include "exercise/tensor.hpp"

namespace ex {

namespace {

// x_hat of every row, and 1 / sqrt(var + eps) of every row.
void normalise(const Tensor& x, float eps, Tensor& x_hat, Tensor& inv_std) {
  const std::size_t N = x.dim(0), d = x.dim(1);
  x_hat = Tensor(x.shape());
  inv_std = Tensor({N});
  for (std::size_t n = 0; n < N; ++n) {
    float mean = 0.0f, var = 0.0f;
    for (std::size_t c = 0; c < d; ++c) mean += x(n, c);
    mean /= float(d);
    for (std::size_t c = 0; c < d; ++c) var += (x(n, c) - mean) * (x(n, c) - mean);
    var /= float(d);
    inv_std(n) = 1.0f / std::sqrt(var + eps);
    for (std::size_t c = 0; c < d; ++c) x_hat(n, c) = (x(n, c) - mean) * inv_std(n);
  }
}

}  // namespace

Tensor layer_norm_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, float eps) {
  Tensor x_hat, inv_std;
  normalise(x, eps, x_hat, inv_std);
  Tensor y(x.shape());
  for (std::size_t n = 0; n < x.dim(0); ++n)
    for (std::size_t c = 0; c < x.dim(1); ++c) y(n, c) = weight(c) * x_hat(n, c) + bias(c);
  return y;
}

void layer_norm_backward(const Tensor& x, const Tensor& weight, const Tensor& grad_y, float eps,
                         Tensor& grad_x, Tensor& grad_weight, Tensor& grad_bias) {
  const std::size_t N = x.dim(0), d = x.dim(1);
  Tensor x_hat, inv_std;
  normalise(x, eps, x_hat, inv_std);
  grad_x = Tensor(x.shape());
  grad_weight = Tensor({d});
  grad_bias = Tensor({d});
  for (std::size_t n = 0; n < N; ++n) {
    // grad_x = inv_std * (g - mean(g) - x_hat * mean(g * x_hat)), g = grad_y * weight.
    float mean_g = 0.0f, mean_g_xhat = 0.0f;
    for (std::size_t c = 0; c < d; ++c) {
      const float g = grad_y(n, c) * weight(c);
      mean_g += g;
      mean_g_xhat += g * x_hat(n, c);
      grad_weight(c) += grad_y(n, c) * x_hat(n, c);
      grad_bias(c) += grad_y(n, c);
    }
    mean_g /= float(d);
    mean_g_xhat /= float(d);
    for (std::size_t c = 0; c < d; ++c)
      grad_x(n, c) = inv_std(n) * (grad_y(n, c) * weight(c) - mean_g - x_hat(n, c) * mean_g_xhat);
  }
}

}  // namespace ex
