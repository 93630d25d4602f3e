/// \file trainer.hpp
/// \brief Chapter 11: the training loop — one step is forward, loss, backward, clip, Adam — with a
/// progress bar, held-out evaluation at intervals, a step or time budget, and a guard against
/// NaN/Inf. Its report (summary line, loss curve) is training_report.hpp's, resuming resume.hpp's.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

#include "tfm/core/trace.hpp"
#include "tfm/data/dataset.hpp"
#include "tfm/model/transformer.hpp"
#include "tfm/support/progress_bar.hpp"
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
double mean_loss(Transformer& model, const std::vector<Batch>& batches);

/// One training step on `batch`: forward, cross-entropy (`loss`, with its label smoothing),
/// backward through every layer, gradients clipped to `options.clip_norm`, and an Adam step at
/// the schedule's rate for step optimizer.steps_taken() + 1. `params` are the model's. Returns the
/// loss. Throws TrainingError, naming the step, for a non-finite loss or gradient.
float train_step(Transformer& model, const ParameterList& params, Adam& optimizer,
                 CrossEntropy& loss, const Batch& batch, const TrainingOptions& options);

/// Everything a training loop does around its steps, so that the loop reads as the steps:
/// \code
/// TrainingLoop loop(model, optimizer, held_out, options, out, interactive);
/// while (loop.next()) {
///   const Batch batch = training_batch(loop.step() - 1);
///   const float value = train_step(model, params, optimizer, loss, batch, options);
///   loop.record(value, loss.counted_tokens());
/// }
/// const TrainingHistory history = loop.finish();
/// \endcode
/// It keeps the budget, the history, the progress on `out` (a self-rewriting bar when
/// `interactive`, plain lines otherwise), the held-out loss every `options.eval_every` steps and
/// the checkpoints of `options.checkpoint_every`. Steps continue from the optimizer's count, so a
/// resumed run extends its curve and goes on with the batch an uninterrupted run would have used.
/// With `options.trace_first_step` and the trace on, the model's first step (not again on a
/// resume) reports its shapes; evaluation and the other steps run silently.
class TrainingLoop {
 public:
  /// Starts the clock. `held_out` gives the batches of the held-out loss (may be empty); it and
  /// `options` must outlive the loop. Throws TrainingError when the options give no budget.
  TrainingLoop(Transformer& model, Adam& optimizer, const std::vector<Batch>& held_out,
               const TrainingOptions& options, std::ostream& out, bool interactive);
  TrainingLoop(const TrainingLoop&) = delete;
  TrainingLoop& operator=(const TrainingLoop&) = delete;

  /// Begins the next step, or returns false: the budget is spent, or a stop was requested
  /// (tfm::stop_requested, Ctrl-C), which ends the loop between two steps.
  bool next();
  /// The number of the step next() began, counted by the optimizer (1 for a new model's first).
  std::size_t step() const { return step_; }
  /// After the step: its loss and the target tokens it trained on go into the history and the
  /// progress; then the held-out loss and the checkpoint, if this step is due for them.
  void record(float loss, std::size_t tokens);
  /// Ends the progress, measures the held-out loss after the last step (if not done yet), and
  /// leaves the model in evaluation mode. Returns the history.
  TrainingHistory finish();

 private:
  Transformer& model_;
  Adam& optimizer_;
  const std::vector<Batch>& held_out_;
  const TrainingOptions& options_;
  ProgressBar bar_;
  TrainingHistory history_;
  TrainingProgress progress_;
  const bool narrate_;   // the trace is on for the first step
  trace::Enable quiet_;  // and off for everything else, until the loop ends
  std::chrono::steady_clock::time_point start_;
  std::size_t done_ = 0;  // steps of this loop
  std::size_t step_ = 0;
};

/// Trains `model` with `optimizer` (built on the model's parameters) until the budget of
/// `options` is spent: the loop above, where step S trains on `training_batch(S - 1)`. Chapter
/// 11's program writes the same loop out. Throws TrainingError on a non-finite loss or gradient.
TrainingHistory train(Transformer& model, Adam& optimizer,
                      const std::function<Batch(std::size_t index)>& training_batch,
                      const std::vector<Batch>& held_out, const TrainingOptions& options,
                      std::ostream& out, bool interactive);

}  // namespace tfm
