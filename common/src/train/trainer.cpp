#include "tfm/train/trainer.hpp"

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

double evaluate_loss(Transformer& model, const std::vector<Batch>& batches) {
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

TrainingHistory train(Transformer& model, Adam& optimizer,
                      const std::function<Batch(std::size_t index)>& training_batch,
                      const std::vector<Batch>& held_out, const TrainingOptions& options,
                      std::ostream& out, bool interactive) {
  if (options.max_steps == 0 && options.max_seconds <= 0.0)
    throw TrainingError("training needs a budget: a number of steps or of minutes");
  const ParameterList params = parameters_of(model);
  CrossEntropy loss_fn(kPadId, options.label_smoothing);
  ProgressBar bar(out, interactive);
  TrainingHistory history;
  // The progress line counts the model's steps, as the held-out losses and the loss curve do: a
  // run resumed after step 1000 shows step 1001 first.
  TrainingProgress progress;
  progress.first_step = optimizer.steps_taken();
  progress.total_steps = options.max_steps > 0 ? progress.first_step + options.max_steps : 0;
  progress.total_seconds = options.max_seconds;

  // Only the model's first step narrates its shapes (not again on a resume); evaluation and the
  // other steps run silently.
  const bool narrate = options.trace_first_step && trace::enabled();
  trace::Enable quiet(false);
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t done = 0;; ++done) {
    if (options.max_steps > 0 && done >= options.max_steps) break;
    if (options.max_seconds > 0.0 && seconds_since(start) >= options.max_seconds) break;
    if (stop_requested()) {  // Ctrl-C: end here, so that the program saves what was trained
      history.stopped = true;
      break;
    }
    const std::size_t step = optimizer.steps_taken() + 1;
    trace::Enable trace(narrate && step == 1);
    const Batch batch = training_batch(step - 1);  // batch 0 for step 1, also after a resume
    const float loss = train_step(model, params, optimizer, loss_fn, batch, options);

    history.steps.push_back(step);
    history.train_loss.push_back(loss);
    history.tokens += loss_fn.counted_tokens();
    progress.step = step;
    progress.loss = loss;
    progress.learning_rate = options.schedule.at(step);
    progress.elapsed_seconds = seconds_since(start);
    progress.tokens_per_second = history.tokens / std::max(progress.elapsed_seconds, 1e-9);
    bar.update(progress);

    if (options.eval_every > 0 && progress.step % options.eval_every == 0 && !held_out.empty()) {
      history.eval_steps.push_back(step);
      history.held_out_loss.push_back(evaluate_loss(model, held_out));
      std::ostringstream line;
      line << "step " << step << ": held-out loss " << history.held_out_loss.back();
      bar.message(line.str());
    }
    if (options.checkpoint_every > 0 && options.checkpoint && step % options.checkpoint_every == 0)
      bar.message(options.checkpoint(step, history));
  }
  history.seconds = seconds_since(start);
  bar.finish(progress);
  if (!held_out.empty() && !history.steps.empty() &&
      (history.eval_steps.empty() || history.eval_steps.back() != history.steps.back())) {
    history.eval_steps.push_back(history.steps.back());
    history.held_out_loss.push_back(evaluate_loss(model, held_out));
  }
  model.set_training(false);
  return history;
}

}  // namespace tfm
