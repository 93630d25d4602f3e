// Resuming (chapter 11): training saved after S steps and resumed from the checkpoint in a fresh
// model and optimizer repeats the uninterrupted run bit for bit — the same batches, the same
// dropout masks, the same Adam state — so a long run may be trained in pieces.
#include <catch2/catch.hpp>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "temp_dir.hpp"
#include "tfm/machinery/checkpoint.hpp"
#include "tfm/machinery/resume.hpp"
#include "tfm/tasks/copy_task.hpp"
#include "tfm/tasks/vowel_task.hpp"
#include "tfm/train/trainer.hpp"

using namespace tfm;

namespace {

// Every parameter and both Adam moments, in registration order: equal means bit-identical.
std::vector<std::vector<float>> state_of(const ParameterList& params, const Adam& adam) {
  std::vector<std::vector<float>> state;
  std::size_t i = 0;
  for (const ParameterRef& p : params) {
    state.emplace_back(p.value, p.value + p.size);
    state.emplace_back(adam.first_moment(i).begin(), adam.first_moment(i).end());
    state.emplace_back(adam.second_moment(i).begin(), adam.second_moment(i).end());
    ++i;
  }
  return state;
}

TrainingOptions steps(std::size_t n, const Config& config) {
  TrainingOptions options = TrainingOptions::from_config(config);
  options.max_steps = n;
  options.trace_first_step = false;
  return options;
}

// The batches of one run of `config`, from a task of its own (as a fresh process would have).
std::function<Batch(std::size_t)> batches_of(const std::function<std::unique_ptr<Task>()>& make,
                                             const Config& config) {
  const std::shared_ptr<const Task> task = make();
  return [task, config](std::size_t index) {
    return task->training_batch(index, config.batch_size, config.seed);
  };
}

// 2n steps straight, against n steps, a checkpoint, and n more from it in a fresh model,
// optimizer and task: the losses of the last n steps and the final weights and moments must be
// identical.
void check_resume(const std::function<std::unique_ptr<Task>()>& make, Config config,
                  std::size_t n) {
  std::ostringstream progress;
  Transformer straight(config, config.seed);
  Adam straight_adam(parameters_of(straight), AdamOptions::paper());
  const TrainingHistory all = train(straight, straight_adam, batches_of(make, config), {},
                                    steps(2 * n, config), progress, false);

  testing::TempDir tmp("resume", "checkpoint");
  const std::string dir = tmp.file("ckpt");
  {
    const std::unique_ptr<Task> task = make();
    Transformer first(config, config.seed);
    Adam adam(parameters_of(first), AdamOptions::paper());
    train(first, adam, batches_of(make, config), {}, steps(n, config), progress, false);
    save_checkpoint(dir, {config, task->source_vocabulary(), task->target_vocabulary()},
                    parameters_of(first), &adam);
  }
  const Config saved = read_checkpoint_header(dir).config;
  Transformer resumed(saved, saved.seed);
  const ParameterList params = parameters_of(resumed);
  load_parameters(dir, params);
  Adam adam(params, AdamOptions::paper());
  load_optimizer_state(dir, params, adam);
  resume_training(resumed, adam);
  const TrainingHistory second =
      train(resumed, adam, batches_of(make, saved), {}, steps(n, saved), progress, false);

  REQUIRE(adam.steps_taken() == 2 * n);
  CHECK(second.train_loss == std::vector<double>(all.train_loss.begin() + n, all.train_loss.end()));
  CHECK(state_of(params, adam) == state_of(parameters_of(straight), straight_adam));
}

}  // namespace

TEST_CASE("resume: 25 + 25 steps from a checkpoint are the 50 straight steps, dropout on (copy)",
          "[resume][checkpoint]") {
  const auto make = []() -> std::unique_ptr<Task> { return std::make_unique<CopyTask>(); };
  Config config = make()->default_model();
  config.dropout = 0.1f;
  config.seed = 7;
  check_resume(make, config, 25);
}

TEST_CASE("resume: 25 + 25 steps from a checkpoint are the 50 straight steps, dropout on (vowels)",
          "[resume][checkpoint]") {
  testing::TempDir tmp("resume", "corpus");
  std::string text;
  for (int i = 0; i < 12; ++i)
    text += "The old man walked down to the harbour every morning before the sun.\n";
  std::ofstream(tmp.file("corpus.txt")) << text;
  const auto make = [&]() -> std::unique_ptr<Task> {
    return std::make_unique<VowelTask>(tmp.file("corpus.txt"));
  };
  Config config = make()->default_model();
  config.d_model = 32;
  config.n_heads = 2;
  config.d_ff = 64;
  config.n_encoder_layers = config.n_decoder_layers = 1;
  config.dropout = 0.1f;
  // About 660 training windows: 25 batches of 16 stay in the first shuffled epoch; batches of
  // 300 make 2 per epoch, so the resumed run starts its 13th epoch (BatchSampler::skip).
  config.batch_size = 16;
  check_resume(make, config, 25);
  config.batch_size = 300;
  check_resume(make, config, 25);
}
