#include "tfm/train/gradient_clipping.hpp"

#include <cmath>
#include <sstream>
#include <vector>

#include "tfm/core/tensor.hpp"
#include "tfm/core/trace.hpp"
#include "tfm/engine/profile.hpp"
#include "tfm/engine/reductions.hpp"

namespace tfm {

namespace {

// Σ g² of each parameter's gradient, in double: a model has millions of entries, and a float
// running sum stops growing once it is ~1e7 times larger than the next term. The threads share
// the parameters; each sum is one thread's, so the sums do not depend on the thread count.
std::vector<double> squared_gradient_sums(const ParameterList& params) {
  std::vector<double> sums(params.size());
#pragma omp parallel for schedule(dynamic)
  for (std::size_t k = 0; k < params.size(); ++k)
    sums[k] = sum_squared_deviations(params.refs()[k].grad, 0.0, params.refs()[k].size);
  return sums;
}

}  // namespace

float gradient_norm(const ParameterList& params) {
  double squares = 0.0;
  for (double sum : squared_gradient_sums(params)) squares += sum;  // in order, on any thread count
  return static_cast<float>(std::sqrt(squares));
}

namespace {

// The norm before and after, as the trace of a training step shows them.
void trace_clipping(float norm, float max_norm, float scale) {
  if (!trace::enabled()) return;
  trace::write_step("GradientClipping", "global norm of every gradient", "||g||", "[]", "scalar");
  std::ostringstream line;
  line << "||g|| = " << norm;
  if (scale < 1.0f)
    line << " > max_norm " << max_norm << ": every gradient times " << scale
         << ", ||g|| = " << norm * scale;
  else
    line << " <= max_norm " << max_norm << ": unchanged";
  trace::note(line.str());
}

}  // namespace

float clip_grad_norm(const ParameterList& params, float max_norm) {
  const profile::Scope timed("gradient clipping");
  require(max_norm > 0.0f, "clip_grad_norm", "max_norm must be positive");
  const float norm = gradient_norm(params);
  if (!std::isfinite(norm)) return norm;  // leave the evidence for the caller's guard
  // PyTorch's rule: scale by max_norm / (norm + 1e-6) when that is below 1. The 1e-6 keeps the
  // factor finite for a zero gradient and makes the clipped norm land just under max_norm.
  const float scale = max_norm / (norm + 1e-6f);
  trace_clipping(norm, max_norm, scale);
  if (scale < 1.0f) {
#pragma omp parallel for schedule(dynamic)
    for (std::size_t k = 0; k < params.size(); ++k) {
      const ParameterRef& p = params.refs()[k];
      for (std::size_t i = 0; i < p.size; ++i) p.grad[i] *= scale;
    }
  }
  return norm;
}

std::optional<std::string> first_non_finite_gradient(const ParameterList& params) {
  // A NaN or an infinity among the entries makes their sum of squares non-finite; finite floats
  // cannot (a square is at most ~1.2e77, far from double's limit), so no entry is tested alone.
  const std::vector<double> sums = squared_gradient_sums(params);
  for (std::size_t k = 0; k < params.size(); ++k)
    if (!std::isfinite(sums[k])) return params.refs()[k].name;
  return std::nullopt;
}

}  // namespace tfm
