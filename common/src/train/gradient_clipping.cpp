#include "tfm/train/gradient_clipping.hpp"

#include <cmath>

#include "tfm/core/profile.hpp"
#include "tfm/core/tensor.hpp"

namespace tfm {

float gradient_norm(const ParameterList& params) {
  // Squares summed in double: a model has millions of entries, and a float running sum stops
  // growing once it is ~1e7 times larger than the next term.
  double squares = 0.0;
  for (const ParameterRef& p : params)
    for (std::size_t i = 0; i < p.size; ++i) squares += static_cast<double>(p.grad[i]) * p.grad[i];
  return static_cast<float>(std::sqrt(squares));
}

float clip_grad_norm(const ParameterList& params, float max_norm) {
  const profile::Scope timed("gradient clipping");
  require(max_norm > 0.0f, "clip_grad_norm", "max_norm must be positive");
  const float norm = gradient_norm(params);
  if (!std::isfinite(norm)) return norm;  // leave the evidence for the caller's guard
  // PyTorch's rule: scale by max_norm / (norm + 1e-6) when that is below 1. The 1e-6 keeps the
  // factor finite for a zero gradient and makes the clipped norm land just under max_norm.
  const float scale = max_norm / (norm + 1e-6f);
  if (scale < 1.0f) {
    for (const ParameterRef& p : params)
      for (std::size_t i = 0; i < p.size; ++i) p.grad[i] *= scale;
  }
  return norm;
}

std::optional<std::string> first_non_finite_gradient(const ParameterList& params) {
  for (const ParameterRef& p : params)
    for (std::size_t i = 0; i < p.size; ++i)
      if (!std::isfinite(p.grad[i])) return p.name;
  return std::nullopt;
}

}  // namespace tfm
