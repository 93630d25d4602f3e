/// \file learning_rate.hpp
/// \brief Chapter 11: learning-rate schedules: the paper's warm-up ("Noam") schedule and a constant rate.
///
/// The paper (§5.3) raises the rate linearly for `warmup` steps, then lets it decay with the
/// inverse square root of the step number:
/// \f[ \mathrm{lr}(s) = f \cdot d_{\mathrm{model}}^{-1/2}
///     \cdot \min\left(s^{-1/2},\; s \cdot \mathrm{warmup}^{-3/2}\right), \qquad s = 1, 2, \dots \f]
/// The two branches meet at \f$ s = \mathrm{warmup} \f$, the peak, where
/// \f$ \mathrm{lr} = f / \sqrt{d_{\mathrm{model}} \cdot \mathrm{warmup}} \f$
/// (paper: \f$ f = 1 \f$, \f$ d_{\mathrm{model}} = 512 \f$, warmup 4000: peak ≈ 7.0e-4).
#pragma once

#include <cstddef>
#include <string>

#include "tfm/model/config.hpp"

namespace tfm {

/// A learning rate as a function of the step number (counted from 1, as the optimizer counts).
class LearningRateSchedule {
 public:
  /// The paper's warm-up schedule; `factor` scales the whole curve.
  static LearningRateSchedule noam(std::size_t d_model, std::size_t warmup_steps,
                                   float factor = 1.0f);
  /// The same rate at every step (reference 002 trains with Adam at 1e-3).
  static LearningRateSchedule constant(float learning_rate);
  /// The schedule a configuration asks for: with warmup_steps > 0 the warm-up schedule scaled
  /// so that its peak is learning_rate; otherwise learning_rate at every step.
  static LearningRateSchedule from_config(const Config& config);

  /// The rate for step `step` >= 1.
  float at(std::size_t step) const;
  /// One line for logs, e.g. "noam: 1 * 512^-0.5 * min(step^-0.5, step * 4000^-1.5), peak 6.99e-04 at step 4000".
  std::string describe() const;

  /// Was the schedule made by noam() (rather than constant())?
  bool is_noam() const { return kind_ == Kind::kNoam; }
  /// The step at which noam() peaks; 0 for a constant rate.
  std::size_t warmup_steps() const { return warmup_; }

 private:
  enum class Kind { kConstant, kNoam };
  LearningRateSchedule(Kind kind, float rate, std::size_t d_model, std::size_t warmup, float factor)
      : kind_(kind), rate_(rate), d_model_(d_model), warmup_(warmup), factor_(factor) {}
  Kind kind_;
  float rate_;           // constant: the rate
  std::size_t d_model_;  // noam
  std::size_t warmup_;   // noam
  float factor_;         // noam
};

}  // namespace tfm
