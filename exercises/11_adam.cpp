// Exercise, chapter 11: one Adam step, and the warm-up learning-rate schedule.
// Check it with: ./tutorial exercise adam
//
// adam_step: for every entry, with gradient g, at step t (counted from 1):
//   m = beta1 * m + (1 - beta1) * g
//   v = beta2 * v + (1 - beta2) * g^2
//   param -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
// (torch.optim.Adam's rule: eps is added after the bias correction of v.)
//
// noam_rate: the paper's schedule, step s counted from 1:
//   lr(s) = factor * d_model^-0.5 * min(s^-0.5, s * warmup^-1.5)
//
// Shapes: param, grad, m, v [n] (one flat tensor; m and v start at 0).
#include <cstddef>

#include "exercise/tensor.hpp"

namespace ex {

void adam_step(Tensor& param, const Tensor& grad, Tensor& m, Tensor& v, std::size_t t, float lr,
               float beta1, float beta2, float eps) {
}

float noam_rate(std::size_t step, std::size_t d_model, std::size_t warmup, float factor) {
  return 0.0f;
}

}  // namespace ex
