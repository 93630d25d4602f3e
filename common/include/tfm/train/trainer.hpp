/// \file trainer.hpp
/// \brief Chapter 11: the training loop — one step is forward, loss, backward, clip, Adam — with a
/// progress bar, held-out evaluation at intervals, a step or time budget, and a guard against
/// NaN/Inf. Its report (summary line, loss curve) is training_report.hpp's, resuming resume.hpp's.
#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

#include "tfm/data/dataset.hpp"
#include "tfm/model/transformer.hpp"
#include "tfm/train/adam.hpp"
#include "tfm/train/cross_entropy.hpp"
#include "tfm/train/learning_rate.hpp"

namespace tfm {

/// Thrown when training cannot go on: a non-finite loss or gradient (the message says at which
/// step and in which parameter), or options that make no sense.
class TrainingError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TrainingHistory;

/// How long and how to train.
struct TrainingOptions {
  std::size_t max_steps = 0;     ///< stop after this many steps (0: no step budget)
  double max_seconds = 0.0;      ///< stop once this much wall time has passed (0: no time budget)
  std::size_t eval_every = 0;    ///< held-out loss every this many steps (0: only at the end)
  float clip_norm = 1.0f;        ///< gradient-norm clipping threshold (0: no clipping)
  float label_smoothing = 0.0f;  ///< the paper uses 0.1
  LearningRateSchedule schedule = LearningRateSchedule::constant(1e-3f);  ///< rate per step
  bool trace_first_step = true;  ///< report every shape of the first step to the trace
  /// Call `checkpoint` after every step whose number (counted by the optimizer, so a resumed
  /// run keeps the rhythm) is a multiple of this (0: never).
  std::size_t checkpoint_every = 0;
  /// Saves the model as of step `step` (e.g. to the paper's checkpoints "written at 10-minute
  /// intervals", which it then averages), with the losses of the run so far, and returns a line
  /// for the progress output.
  std::function<std::string(std::size_t step, const TrainingHistory& so_far)> checkpoint;

  /// The options a configuration asks for: its clip_norm, its label_smoothing and its learning
  /// rate schedule (LearningRateSchedule::from_config); no budget yet.
  static TrainingOptions from_config(const Config& config);
};

/// The loss curve and totals of a run.
struct TrainingHistory {
  std::vector<std::size_t> steps;       ///< step numbers (counted by the optimizer)
  std::vector<double> train_loss;       ///< training loss at each of `steps`
  std::vector<std::size_t> eval_steps;  ///< where the held-out loss was measured
  std::vector<double> held_out_loss;    ///< held-out loss at each of `eval_steps`
  std::size_t tokens = 0;               ///< target tokens trained on
  double seconds = 0.0;                 ///< wall time of the loop
  bool stopped = false;                 ///< ended by a stop request (Ctrl-C), not its budget
  /// Target tokens per second over the run.
  double tokens_per_second() const { return seconds > 0 ? tokens / seconds : 0.0; }
};

/// Mean cross-entropy (no label smoothing, pad ignored) of `model` in evaluation mode over
/// `batches`, weighted by their counted tokens. Leaves the model in evaluation mode.
double evaluate_loss(Transformer& model, const std::vector<Batch>& batches);

/// One training step on `batch`: forward, cross-entropy (`loss`, with its label smoothing),
/// backward through every layer, gradients clipped to `options.clip_norm`, and an Adam step at
/// the schedule's rate for step optimizer.steps_taken() + 1. `params` are the model's. Returns the
/// loss. Throws TrainingError, naming the step, for a non-finite loss or gradient.
float train_step(Transformer& model, const ParameterList& params, Adam& optimizer,
                 CrossEntropy& loss, const Batch& batch, const TrainingOptions& options);

/// Trains `model` with `optimizer` (built on the model's parameters) until the budget of
/// `options` is spent, printing progress to `out` (a self-rewriting bar when `interactive`,
/// plain lines otherwise). Step S trains on `training_batch(S - 1)`. Steps continue from the
/// optimizer's count, so a resumed run extends its curve and goes on with the batch an
/// uninterrupted run would have used. `held_out` gives the batches of the held-out loss (may be
/// empty). A stop request (tfm::stop_requested, Ctrl-C) ends the loop between two steps, as if
/// the budget were spent. Throws TrainingError on a non-finite loss or gradient.
TrainingHistory train(Transformer& model, Adam& optimizer,
                      const std::function<Batch(std::size_t index)>& training_batch,
                      const std::vector<Batch>& held_out, const TrainingOptions& options,
                      std::ostream& out, bool interactive);

}  // namespace tfm
