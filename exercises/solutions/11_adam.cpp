// Solution of the exercise adam (chapter 11). Try the exercise first.
#include <algorithm>
#include <cmath>
#include <cstddef>

#include "exercise/tensor.hpp"

namespace ex {

void adam_step(Tensor& param, const Tensor& grad, Tensor& m, Tensor& v, std::size_t t, float lr,
               float beta1, float beta2, float eps) {
  const float correction1 = 1.0f - std::pow(beta1, float(t));
  const float correction2 = std::sqrt(1.0f - std::pow(beta2, float(t)));
  for (std::size_t i = 0; i < param.size(); ++i) {
    const float g = grad(i);
    m(i) = beta1 * m(i) + (1.0f - beta1) * g;
    v(i) = beta2 * v(i) + (1.0f - beta2) * g * g;
    param(i) -= lr / correction1 * m(i) / (std::sqrt(v(i)) / correction2 + eps);
  }
}

float noam_rate(std::size_t step, std::size_t d_model, std::size_t warmup, float factor) {
  const double s = double(step);
  return float(factor / std::sqrt(double(d_model)) *
               std::min(1.0 / std::sqrt(s), s * std::pow(double(warmup), -1.5)));
}

}  // namespace ex
