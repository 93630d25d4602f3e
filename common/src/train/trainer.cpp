#include "tfm/train/trainer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ostream>
#include <sstream>

#include "tfm/core/no_grad.hpp"
#include "tfm/core/trace.hpp"
#include "tfm/engine/stopwatch.hpp"
#include "tfm/support/progress_bar.hpp"
#include "tfm/support/stop_request.hpp"
#include "tfm/train/gradient_clipping.hpp"

namespace tfm {

TrainingOptions TrainingOptions::from_config(const Config& config) {
  TrainingOptions options;
  options.clip_norm = config.clip_norm;
  options.label_smoothing = config.label_smoothing;
  options.schedule = LearningRateSchedule::from_config(config);
  return options;
}

double mean_loss(Transformer& model, const std::vector<Batch>& batches) {
  model.set_training(false);
  CrossEntropy loss_fn(kPadId);
  NoGrad no_grad;  // the held-out loss needs no backward: the forwards keep nothing
  double total = 0.0;
  std::size_t tokens = 0;
  for (const Batch& batch : batches) {
    const float loss = loss_fn.forward(model.forward(batch.src, batch.tgt_in), batch.tgt_out);
    total += static_cast<double>(loss) * static_cast<double>(loss_fn.counted_tokens());
    tokens += loss_fn.counted_tokens();
  }
  return tokens > 0 ? total / static_cast<double>(tokens) : 0.0;
}

namespace {

// A NaN or an infinity stops training at once, naming the step, rather than spreading into every
// weight.
void require_finite_loss(float loss, std::size_t step, const TrainingOptions& options) {
  if (std::isfinite(loss)) return;
  std::ostringstream message;
  message << "step " << step << ": the loss is " << loss << " (learning rate "
          << options.schedule.at(step) << "); lower the learning rate or clip harder";
  throw TrainingError(message.str());
}

void require_finite_gradients(const ParameterList& params, std::size_t step, float loss) {
  if (const auto bad = first_non_finite_gradient(params))
    throw TrainingError("step " + std::to_string(step) + ": the gradient of '" + *bad +
                        "' is not finite (loss " + std::to_string(loss) + ")");
}

}  // namespace

// [train step]
float train_step(Transformer& model, const ParameterList& params, Adam& optimizer,
                 CrossEntropy& loss, const Batch& batch, const TrainingOptions& options) {
  const std::size_t step = optimizer.steps_taken() + 1;
  model.set_training(true);
  params.zero_grad();
  const Tensor3 logits = model.forward(batch.src, batch.tgt_in);
  const float value = loss.forward(logits, batch.tgt_out);
  require_finite_loss(value, step, options);
  model.backward(loss.backward());  // every layer's backward, in reverse
  require_finite_gradients(params, step, value);
  if (options.clip_norm > 0.0f) clip_grad_norm(params, options.clip_norm);
  optimizer.step(options.schedule.at(step));
  return value;
}
// [train step]

TrainingLoop::TrainingLoop(Transformer& model, Adam& optimizer, const std::vector<Batch>& held_out,
                           const TrainingOptions& options, std::ostream& out, bool interactive)
    : model_(model),
      optimizer_(optimizer),
      held_out_(held_out),
      options_(options),
      bar_(out, interactive),
      narrate_(options.trace_first_step && trace::enabled()),
      quiet_(false),
      start_(std::chrono::steady_clock::now()) {
  if (options.max_steps == 0 && options.max_seconds <= 0.0)
    throw TrainingError("training needs a budget: a number of steps or of minutes");
  // The progress line counts the model's steps, as the held-out losses and the loss curve do: a
  // run resumed after step 1000 shows step 1001 first.
  progress_.first_step = optimizer.steps_taken();
  progress_.total_steps = options.max_steps > 0 ? progress_.first_step + options.max_steps : 0;
  progress_.total_seconds = options.max_seconds;
}

bool TrainingLoop::next() {
  trace::set_enabled(false);
  if (options_.max_steps > 0 && done_ >= options_.max_steps) return false;
  if (options_.max_seconds > 0.0 && seconds_since(start_) >= options_.max_seconds) return false;
  if (stop_requested()) {  // Ctrl-C: end here, so that the program saves what was trained
    history_.stopped = true;
    return false;
  }
  ++done_;
  step_ = optimizer_.steps_taken() + 1;
  trace::set_enabled(narrate_ && step_ == 1);
  return true;
}

void TrainingLoop::record(float loss, std::size_t tokens) {
  history_.steps.push_back(step_);
  history_.train_loss.push_back(loss);
  history_.tokens += tokens;
  progress_.step = step_;
  progress_.loss = loss;
  progress_.learning_rate = options_.schedule.at(step_);
  progress_.elapsed_seconds = seconds_since(start_);
  progress_.tokens_per_second = history_.tokens / std::max(progress_.elapsed_seconds, 1e-9);
  bar_.update(progress_);

  if (options_.eval_every > 0 && step_ % options_.eval_every == 0 && !held_out_.empty()) {
    history_.eval_steps.push_back(step_);
    history_.held_out_loss.push_back(mean_loss(model_, held_out_));
    std::ostringstream line;
    line << "step " << step_ << ": held-out loss " << history_.held_out_loss.back();
    bar_.message(line.str());
  }
  if (options_.checkpoint_every > 0 && options_.checkpoint &&
      step_ % options_.checkpoint_every == 0)
    bar_.message(options_.checkpoint(step_, history_));
}

TrainingHistory TrainingLoop::finish() {
  trace::set_enabled(false);
  history_.seconds = seconds_since(start_);
  bar_.finish(progress_);
  if (!held_out_.empty() && !history_.steps.empty() &&
      (history_.eval_steps.empty() || history_.eval_steps.back() != history_.steps.back())) {
    history_.eval_steps.push_back(history_.steps.back());
    history_.held_out_loss.push_back(mean_loss(model_, held_out_));
  }
  model_.set_training(false);
  return history_;
}

TrainingHistory train(Transformer& model, Adam& optimizer,
                      const std::function<Batch(std::size_t index)>& training_batch,
                      const std::vector<Batch>& held_out, const TrainingOptions& options,
                      std::ostream& out, bool interactive) {
  const ParameterList params = parameters_of(model);
  CrossEntropy loss(kPadId, options.label_smoothing);
  TrainingLoop loop(model, optimizer, held_out, options, out, interactive);
  while (loop.next()) {
    const Batch batch = training_batch(loop.step() - 1);  // batch 0 for step 1, also after a resume
    const float value = train_step(model, params, optimizer, loss, batch, options);
    loop.record(value, loss.counted_tokens());  // the step's tokens: read after the step
  }
  return loop.finish();
}

}  // namespace tfm
