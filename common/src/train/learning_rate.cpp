#include "tfm/train/learning_rate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tfm/core/tensor.hpp"

namespace tfm {

LearningRateSchedule LearningRateSchedule::noam(std::size_t d_model, std::size_t warmup_steps,
                                                float factor) {
  require(d_model > 0, "LearningRateSchedule", "noam needs d_model > 0");
  require(warmup_steps > 0, "LearningRateSchedule", "noam needs warmup_steps > 0");
  require(factor > 0.0f, "LearningRateSchedule", "noam needs a positive factor");
  return LearningRateSchedule(Kind::kNoam, 0.0f, d_model, warmup_steps, factor);
}

LearningRateSchedule LearningRateSchedule::constant(float learning_rate) {
  require(learning_rate >= 0.0f && std::isfinite(learning_rate), "LearningRateSchedule",
          "the constant learning rate must be finite and not negative");
  return LearningRateSchedule(Kind::kConstant, learning_rate, 0, 0, 0.0f);
}

// [noam schedule]
LearningRateSchedule LearningRateSchedule::from_config(const Config& c) {
  if (c.warmup_steps == 0) return constant(c.learning_rate);
  // The peak is factor / sqrt(d_model * warmup): this factor puts it at learning_rate.
  const float factor = c.learning_rate * std::sqrt(static_cast<float>(c.d_model * c.warmup_steps));
  return noam(c.d_model, c.warmup_steps, factor);
}

float LearningRateSchedule::at(std::size_t step) const {
  // Step 0 would make step^-0.5 infinite: steps count from 1, like Adam's t.
  require(step >= 1, "LearningRateSchedule", "steps are counted from 1");
  if (kind_ == Kind::kConstant) return rate_;
  const double s = static_cast<double>(step), w = static_cast<double>(warmup_);
  // Linear warm-up (s · w^-1.5) until the two branches cross at s = w, then decay as s^-0.5.
  const double shape = std::min(1.0 / std::sqrt(s), s / (w * std::sqrt(w)));
  return static_cast<float>(factor_ / std::sqrt(static_cast<double>(d_model_)) * shape);
}
// [noam schedule]

std::string LearningRateSchedule::describe() const {
  char text[160];
  if (kind_ == Kind::kConstant) {
    std::snprintf(text, sizeof text, "constant: %.3g", static_cast<double>(rate_));
  } else {
    std::snprintf(text, sizeof text,
                  "noam: %g * %zu^-0.5 * min(step^-0.5, step * %zu^-1.5), peak %.3g at step %zu",
                  static_cast<double>(factor_), d_model_, warmup_, static_cast<double>(at(warmup_)),
                  warmup_);
  }
  return text;
}

}  // namespace tfm
