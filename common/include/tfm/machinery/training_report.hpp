/// \file training_report.hpp
/// \brief Machinery (not a lesson): what a training run reports — one summary line and the loss curve.
#pragma once

#include <string>

#include "tfm/train/trainer.hpp"

namespace tfm {

/// Draws the training loss (and the held-out loss where it was measured) against the step, on a
/// logarithmic axis, as an SVG line chart titled `title`.
void write_loss_curve_svg(const std::string& path, const TrainingHistory& history,
                          const std::string& title);

/// One line that sums up a run: steps, seconds, threads, tokens per second, first and last training loss,
/// the last held-out loss, and the OpenBLAS kernels the products ran on.
std::string summary(const TrainingHistory& history);

}  // namespace tfm
