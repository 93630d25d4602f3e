#include "tfm/train/adam.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "tfm/core/tensor.hpp"
#include "tfm/core/trace.hpp"
#include "tfm/engine/profile.hpp"
#include "tfm/support/format.hpp"

namespace tfm {

Adam::Adam(const ParameterList& params, AdamOptions options) : params_(params), options_(options) {
  // The same checks (and ranges) as torch.optim.Adam's constructor.
  require(options.beta1 >= 0.0f && options.beta1 < 1.0f, "Adam", "beta1 must lie in [0, 1)");
  require(options.beta2 >= 0.0f && options.beta2 < 1.0f, "Adam", "beta2 must lie in [0, 1)");
  require(options.eps >= 0.0f, "Adam", "eps must not be negative");
  require(options.weight_decay >= 0.0f, "Adam", "weight_decay must not be negative");
  for (const ParameterRef& p : params_) {
    m_.emplace_back(p.size, 0.0f);
    v_.emplace_back(p.size, 0.0f);
  }
}

// [adam step]
void Adam::step(float learning_rate) {
  const profile::Scope timed("Adam step");
  require(learning_rate >= 0.0f, "Adam", "the learning rate must not be negative");
  params_.verify("Adam::step");
  ++steps_;
  const double t = static_cast<double>(steps_);
  const float b1 = options_.beta1, b2 = options_.beta2, eps = options_.eps;
  const float decay = options_.weight_decay;
  // The bias corrections, in double: β2^t for t in the thousands is 1 - (a small number).
  const float step_size =
      static_cast<float>(learning_rate / (1.0 - std::pow(static_cast<double>(b1), t)));
  const float inv_sqrt_correction2 =
      static_cast<float>(1.0 / std::sqrt(1.0 - std::pow(static_cast<double>(b2), t)));
  // Every entry is updated on its own: the threads share the parameters.
#pragma omp parallel for schedule(dynamic)
  for (std::size_t k = 0; k < params_.size(); ++k) {
    const ParameterRef& p = params_.refs()[k];
    float* m = m_[k].data();
    float* v = v_[k].data();
#pragma omp simd
    for (std::size_t i = 0; i < p.size; ++i) {
      const float g = p.grad[i] + decay * p.value[i];  // L2 penalty, as torch.optim.Adam
      m[i] = b1 * m[i] + (1.0f - b1) * g;              // running mean of g
      v[i] = b2 * v[i] + (1.0f - b2) * g * g;          // running mean of g²
      // θ -= lr/(1-β1^t) · m / (√v/√(1-β2^t) + ε): ε is added after the correction, as PyTorch.
      p.value[i] -= step_size * m[i] / (std::sqrt(v[i]) * inv_sqrt_correction2 + eps);
    }
  }
  if (trace::enabled()) trace_update(step_size, inv_sqrt_correction2);
}
// [adam step]

void Adam::trace_update(float step_size, float inv_sqrt_correction2) const {
  trace::note("[Adam] every parameter: w -= lr m / (sqrt(v) + eps), bias-corrected (" +
              std::to_string(params_.size()) + " tensors)");
  if (params_.size() == 0) return;
  // The largest tensor's update, recomputed from the moments: its size beside the weight's is the
  // usual sanity check (about 1e-3 of it is healthy; far more and the step is too large).
  std::size_t k = 0;
  for (std::size_t j = 1; j < params_.size(); ++j)
    if (params_.refs()[j].size > params_.refs()[k].size) k = j;
  const ParameterRef& p = params_.refs()[k];
  double update_squares = 0.0, value_squares = 0.0;
  for (std::size_t i = 0; i < p.size; ++i) {
    const double update =
        step_size * m_[k][i] / (std::sqrt(v_[k][i]) * inv_sqrt_correction2 + options_.eps);
    update_squares += update * update;
    value_squares += static_cast<double>(p.value[i]) * p.value[i];
  }
  trace::write_step("Adam", "update of the largest tensor", "delta " + p.name,
                    shape_string(p.shape), "");
  const double n = static_cast<double>(p.size);
  trace::note(format("rms(delta) = %.3g, rms(%s) = %.3g", std::sqrt(update_squares / n),
                     p.name.c_str(), std::sqrt(value_squares / n)));
}

const std::vector<float>& Adam::first_moment(std::size_t index) const {
  return m_.at(index);
}
const std::vector<float>& Adam::second_moment(std::size_t index) const {
  return v_.at(index);
}

void Adam::restore(std::size_t steps, std::vector<std::vector<float>> first,
                   std::vector<std::vector<float>> second) {
  const std::string count = std::to_string(params_.size());
  require(first.size() == params_.size() && second.size() == params_.size(), "Adam restore",
          "the saved state has " + std::to_string(first.size()) + " first and " +
              std::to_string(second.size()) + " second moments for " + count + " parameters");
  for (std::size_t k = 0; k < params_.size(); ++k) {
    const ParameterRef& p = params_.refs()[k];
    require(first[k].size() == p.size && second[k].size() == p.size, "Adam restore",
            "the saved moments of '" + p.name + "' have " + std::to_string(first[k].size()) +
                " and " + std::to_string(second[k].size()) + " entries, the parameter has " +
                std::to_string(p.size));
  }
  steps_ = steps;
  m_ = std::move(first);
  v_ = std::move(second);
}

}  // namespace tfm
