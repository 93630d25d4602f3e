#include "tfm/machinery/training_run.hpp"

#include <algorithm>
#include <limits>
#include <ostream>
#include <stdexcept>
#include <string>

#include "tfm/core/trace.hpp"
#include "tfm/engine/precision.hpp"
#include "tfm/machinery/checkpoint_config.hpp"
#include "tfm/machinery/loss_history.hpp"
#include "tfm/machinery/memory_estimate.hpp"
#include "tfm/machinery/resume.hpp"
#include "tfm/machinery/saving.hpp"
#include "tfm/machinery/training_report.hpp"
#include "tfm/pictures/attention_pictures.hpp"
#include "tfm/support/progress_bar.hpp"
#include "tfm/support/text_file.hpp"
#include "tfm/train/trainer.hpp"

namespace tfm {

void RunOptions::declare(CommandLine& cli, const Declared& declared) {
  cli.config_options(
         "", "override one hyper-parameter (see ch01_params --help); default: " + declared.model)
      .option("--steps", "N",
              "train for N steps; after --load, N more steps (default: " + declared.steps + ")")
      .option("--minutes", "M", "train for at most M minutes (after --load, M more minutes)")
      .option("--seed", "N",
              "seed of the weights, the dropout masks and the batches (default: 1, or the "
              "checkpoint's)")
      .option("--save", "DIR", "save a checkpoint after training")
      .option("--save-every", "N",
              "also save DIR-step<S> after every step S that is a multiple of N")
      .option("--load", "DIR", "start from a checkpoint (training resumes with its optimizer)")
      .repeated("--average", "DIR", "test the mean of the weights of these checkpoints (2 or more)")
      .flag("--force-average",
            "average checkpoints even of different training runs or settings (refused otherwise)")
      .option("--beam", "K", "beam search with K beams (1: greedy)", std::to_string(declared.beam))
      .option("--eval-every", "N", "held-out loss every N steps (0: only at the end)", "100")
      .option("--precision", "P",
              "fp32 | bf16: the matrix products' operands (bf16: the CPU's bf16 instructions; "
              "weights, sums and everything else stay fp32)",
              "fp32");
  if (declared.heat_map)
    cli.option("--layer", "L", "layer of the attention heat maps (default: the last)")
        .option("--head", "H", "head of the attention heat maps", "0");
}

RunOptions RunOptions::read(const CommandLine& cli) {
  RunOptions o;
  if (cli.given("--seed")) o.seed = cli.count("--seed");
  if (cli.given("--steps")) o.steps = cli.count("--steps");
  if (cli.given("--minutes")) o.minutes = cli.positive_number("--minutes");
  o.save = cli.value("--save");
  o.load = cli.value("--load");
  o.average = cli.values("--average");
  if (cli.given("--save-every")) {
    if (o.save.empty())
      throw UsageError("--save-every needs --save DIR (the checkpoints are DIR-step<S>)");
    o.save_every = cli.count("--save-every", 1, std::numeric_limits<std::size_t>::max());
  }
  if (!o.average.empty() && !o.load.empty())
    throw UsageError("--load and --average both choose the weights; give one of them");
  if ((!o.load.empty() || !o.average.empty()) && cli.given("--preset"))
    throw UsageError("--preset chooses a new model, but --load / --average test a saved one");
  if (!o.average.empty() && (cli.given("--steps") || cli.given("--minutes")))
    throw UsageError(
        "--average makes a model to test, not to train on: Adam's state is not averaged");
  o.force_average = cli.flag_set("--force-average");
  if (o.force_average && o.average.empty())
    throw UsageError("--force-average needs --average DIR --average DIR ...");
  if (o.average.size() == 1)
    throw UsageError("--average needs 2 or more checkpoints (to test one, use --load " +
                     o.average[0] + ")");
  o.beam = cli.count("--beam", 1, 64);
  o.eval_every = cli.count("--eval-every");
  // Chosen here, so that no program can read the option and not use it; bf16 on a CPU without
  // it is refused by set_product_precision itself ("bf16: <why>").
  try {
    o.precision = precision_from_name(cli.value("--precision"));
    set_product_precision(o.precision);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--precision: ") + e.what());
  } catch (const std::runtime_error& e) {
    throw UsageError(std::string("--precision ") + e.what());
  }
  if (cli.declares("--head")) {
    o.head = cli.count("--head");
    if (cli.given("--layer")) o.layer = cli.count("--layer");
  }
  if (!o.save.empty()) {
    check_checkpoint_destination(o.save, o.save_every > 0);
    o.save_lock = std::make_shared<const CheckpointLock>(o.save);  // one writer per checkpoint
  }
  return o;
}

std::string RunOptions::saved_checkpoint() const {
  return !load.empty() ? load : average.empty() ? "" : average.front();
}

void load_chosen_weights(const RunOptions& options, Transformer& model, const ParameterList& params,
                         Adam& optimizer, std::ostream& out) {
  if (!options.load.empty()) {
    const bool weights_only = !has_optimizer_state(options.load);
    const std::size_t steps = resume_from(options.load, model, params, optimizer);
    out << "loaded " << options.load
        << (weights_only ? " (weights only, no optimizer state: training would start Adam and its "
                           "warm-up afresh)"
                         : " (" + std::to_string(steps) + " steps trained)")
        << "\n";
  }
  if (!options.average.empty()) {
    load_averaged_parameters(options.average, params, options.force_average);
    out << "loaded the mean of " << options.average.size() << " checkpoints' weights\n";
  }
}

void require_same_architecture(const CommandLine& cli, const std::string& checkpoint,
                               const Config& saved) {
  for (const std::string& assignment : cli.values("--set")) {
    const std::string key = assignment.substr(0, assignment.find('='));
    if (checkpoint_model_keys().count(key))
      throw UsageError("--set " + assignment + ": the model loaded from '" + checkpoint + "' has " +
                       key + "=" + saved.get(key) +
                       ", and its weights fit only that; train a new model to change it");
  }
}

Config model_config(const CommandLine& cli, const RunOptions& o, const Task& task) {
  for (const std::string& assignment : cli.values("--set"))
    for (const std::string& key : Task::data_keys())
      if (assignment.rfind(key + "=", 0) == 0)
        throw UsageError("--set " + key + ": the task's data decides it");
  const std::string checkpoint = o.saved_checkpoint();
  Config base = task.default_model();
  if (!checkpoint.empty()) {
    const CheckpointHeader header = read_checkpoint_header(checkpoint);
    require_same_vocabulary(header.src_vocabulary, task.source_vocabulary(), "source");
    require_same_vocabulary(header.tgt_vocabulary, task.target_vocabulary(), "target");
    base = header.config;
    require_same_architecture(cli, checkpoint, base);
  }
  Config config = config_from_command_line(cli, base);  // --preset, then every --set
  if (checkpoint.empty()) config = task.fit(config);
  if (o.seed) config.seed = *o.seed;  // a resumed run may deliberately draw other batches
  config.validate();
  // A model larger than this machine is refused with its estimate, not met by bad_alloc later.
  require_memory(training_memory(config, config.batch_size));
  // What needs the model's sizes, checked before anything is built or trained.
  const std::size_t layers = std::min(config.n_encoder_layers, config.n_decoder_layers);
  if (o.layer.value_or(layers - 1) >= layers || o.head >= config.n_heads)
    throw UsageError("--layer/--head out of range: the model has " +
                     std::to_string(config.n_encoder_layers) + " + " +
                     std::to_string(config.n_decoder_layers) + " layers and " +
                     std::to_string(config.n_heads) + " heads");
  return config;
}

TrainingRun::TrainingRun(const Config& config, const RunOptions& options, const Task& task,
                         std::ostream& out)
    : options_(options),
      task_(task),
      model_(config, config.seed),
      params_(parameters_of(model_)),
      optimizer_(params_, AdamOptions::paper()),
      header_{config, task.source_vocabulary(), task.target_vocabulary()} {
  // A resumed run goes on under its name and its loss history; a new one (or an average) gets a
  // new name and starts its history.
  if (!options.load.empty()) {
    const CheckpointHeader saved = read_checkpoint_header(options.load);
    header_.run = saved.run;
    keep_loss_history(saved, options.load, header_, out);
  }
  if (header_.run.empty()) header_.run = new_run_id();
  load_chosen_weights(options_, model_, params_, optimizer_, out);
  out << "task " << task.name() << ", model '" << config.preset << "': d_model " << config.d_model
      << ", " << config.n_heads << " heads, " << config.n_encoder_layers << " + "
      << config.n_decoder_layers << " layers, d_ff " << config.d_ff << ", " << params_.count()
      << " parameters"
      << (options.precision == Precision::kBf16 ? ", products in bf16 on " + bf16_kernels()
                                                : std::string())
      << "\n";
}

std::optional<TrainingOptions> TrainingRun::training_options() const {
  // The budget: --steps and/or --minutes; else the task's steps, except after --load or
  // --average, where only an explicit budget trains (so that --load DIR --restore TEXT restores).
  const RunOptions& o = options_;
  TrainingOptions training = TrainingOptions::from_config(config());
  const bool use_default = !o.steps && !o.minutes && o.load.empty() && o.average.empty();
  training.max_steps = use_default ? task_.default_steps() : o.steps.value_or(0);
  training.max_seconds = 60.0 * o.minutes.value_or(0.0);
  if (training.max_steps == 0 && training.max_seconds <= 0) return std::nullopt;
  training.eval_every = o.eval_every;
  training.checkpoint_every = o.save_every;
  training.checkpoint = periodic_checkpoints(o.save, header_, params_, optimizer_);
  return training;
}

void TrainingRun::start_training(const TrainingOptions& options, std::ostream& out) {
  out << "learning rate: " << options.schedule.describe() << "\n";
  if (optimizer_.steps_taken() == 0) out << "\nThe first training step, traced:\n";
  stop_on_signal_ = std::make_unique<StopOnSignal>();
}

Batch TrainingRun::training_batch(std::size_t index) const {
  // The batch size is the model's: the task's default, or as --preset / --set chose.
  return task_.training_batch(index, config().batch_size, config().seed);
}

std::string TrainingRun::finish_training(const TrainingHistory& history, std::ostream& out) {
  history_ = history;
  const std::string trained = summary(history_);
  out << trained;
  return trained;
}

std::string TrainingRun::train(std::ostream& out) {
  const std::optional<TrainingOptions> options = training_options();
  if (!options) return "";
  start_training(*options, out);
  const trace::Enable trace;  // the first step shows every shape
  const auto batch = [&](std::size_t index) { return training_batch(index); };
  return finish_training(tfm::train(model_, optimizer_, batch, task_.held_out(), *options, out,
                                    ProgressBar::stdout_is_terminal()),
                         out);
}

void TrainingRun::save(const std::string& program, std::ostream& out) {
  // An average has no optimizer state of its own: it is saved as weights only.
  save_trained_model(program, options_.save, history_, header_, params_,
                     options_.average.empty() ? &optimizer_ : nullptr, out);
  stop_on_signal_.reset();
}

void TrainingRun::write_loss_curve(std::ostream& out) const {
  if (history_.steps.empty()) return;
  const std::string curve = "loss_curve_" + task_.name() + ".svg";
  if (write_side_output([&] {
        write_loss_curve_svg(curve, joined(saved_loss_history(header_), history_),
                             "Cross-entropy while training (" + task_.name() + ")");
      }))
    out << "wrote " << curve << "\n";
}

void TrainingRun::write_results(const std::string& results, std::ostream& out) const {
  const std::string file = "results_" + task_.name() + ".txt";
  if (write_side_output([&] { write_text_file(file, results); })) out << "wrote " << file << "\n";
}

std::vector<std::string> TrainingRun::write_attention_maps(const TokenIds& src,
                                                           const TokenIds& tgt_in,
                                                           const std::string& prefix) {
  const std::size_t layer =
      options_.layer.value_or(std::min(config().n_encoder_layers, config().n_decoder_layers) - 1);
  std::vector<std::string> written;
  write_side_output([&] {
    written = tfm::write_attention_maps(model_, src, tgt_in, task_.source_vocabulary(),
                                        task_.target_vocabulary(), layer, options_.head, prefix);
  });
  return written;
}

}  // namespace tfm
