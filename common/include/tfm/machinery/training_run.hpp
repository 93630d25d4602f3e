/// \file training_run.hpp
/// \brief Machinery (not a lesson): what every program that trains a Transformer on a tfm::Task shares —
/// chapter 11's program and each project's: the options (budget, seed, checkpoints, --load,
/// --average, --beam, the heat maps' layer and head), the model they ask for, and the model
/// built, loaded, trained and saved.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tfm/core/parameter.hpp"
#include "tfm/engine/precision.hpp"
#include "tfm/machinery/checkpoint.hpp"
#include "tfm/machinery/checkpoint_lock.hpp"
#include "tfm/machinery/command_line.hpp"
#include "tfm/model/config.hpp"
#include "tfm/model/transformer.hpp"
#include "tfm/support/stop_request.hpp"
#include "tfm/tasks/task.hpp"
#include "tfm/train/adam.hpp"
#include "tfm/train/trainer.hpp"

namespace tfm {

/// The options of a training run, read and checked before any data is read or any step is
/// trained: a typo costs nothing.
struct RunOptions {
  std::optional<std::size_t> steps;  ///< the budget; neither this nor `minutes`: the task's steps
  std::optional<double> minutes;     ///< a wall-time budget
  std::optional<std::size_t> seed;   ///< default: the checkpoint's, else the configuration's
  std::string save;                  ///< --save DIR ("" for none)
  std::size_t save_every = 0;        ///< also save `DIR-stepS` every this many steps (0: never)
  std::string load;                  ///< --load DIR ("" for none)
  std::vector<std::string> average;  ///< checkpoints whose mean weights are tested
  bool force_average = false;        ///< --force-average: even checkpoints of different runs
  /// The lock on --save, held from the check before training to the end of the run: a second
  /// run saving to the same place is refused (tfm::CheckpointLock). Null without --save.
  std::shared_ptr<const CheckpointLock> save_lock;
  std::size_t beam = 1;                    ///< 1: greedy decoding; K: beam search with K beams
  std::size_t eval_every = 100;            ///< held-out loss every this many steps (0: at the end)
  std::optional<std::size_t> layer;        ///< of the attention heat maps; default: the last
  std::size_t head = 0;                    ///< of the attention heat maps
  Precision precision = Precision::kFp32;  ///< of the matrix products (--precision)

  /// What a program may change of the options' declarations.
  struct Declared {
    std::string model = "the task's model";   ///< what --set changes, in its help
    std::size_t beam = 1;                     ///< --beam's default
    bool heat_map = true;                     ///< declare --layer and --head
    std::string steps = "the task's budget";  ///< --steps' default, in its help
  };
  /// Declares the options on `cli`: --preset and --set (the model), --steps, --minutes, --seed,
  /// --save, --save-every, --load, --average, --beam, --eval-every, --precision, and (`heat_map`) --layer and
  /// --head.
  static void declare(CommandLine& cli, const Declared& declared);
  /// The same with every default: the task's model and budget, greedy decoding, the heat-map
  /// options.
  static void declare(CommandLine& cli) { declare(cli, Declared{}); }
  /// Reads them back, and chooses the products' precision (tfm::set_product_precision) for the
  /// rest of the program; throws UsageError naming the option for a value out of range or options
  /// that contradict each other (--load with --average, --average with a budget, ...), and
  /// CheckpointError for a --save destination that cannot be written (its step checkpoints'
  /// names too, with --save-every) or that another run is saving to (it takes the lock).
  static RunOptions read(const CommandLine& cli);
  /// The checkpoint whose configuration the run takes: --load, else the first --average; "" for
  /// a new model.
  std::string saved_checkpoint() const;
};

/// Loads the weights `options` choose into `params`: --load resumes the saved run (resume_from:
/// its weights, Adam's state, the dropout masks), --average takes the mean of its checkpoints'
/// weights (of one run, unless --force-average). Says which on `out`, and when a checkpoint holds
/// weights only (training would start Adam and the warm-up afresh); a new model is left as it is.
void load_chosen_weights(const RunOptions& options, Transformer& model, const ParameterList& params,
                         Adam& optimizer, std::ostream& out);

/// The model the options ask for: the task's default model (or `--preset`), then every `--set`;
/// or the configuration of the checkpoint of --load / --average, whose vocabularies must be the
/// task's. Then the seed of `--seed`. Refused with a clear error before anything is built: a
/// `--set` of a key the task's data decides (Task::data_keys), a model larger than the
/// machine's memory, a --layer or --head the model does not have.
Config model_config(const CommandLine& cli, const RunOptions& options, const Task& task);

/// Refuses, with a UsageError naming the key, a `--set` of a model key (the architecture:
/// tfm::checkpoint_model_keys) for a model loaded from `checkpoint`, whose configuration is
/// `saved`: the weights fit only the architecture they were trained in. Training keys may change.
void require_same_architecture(const CommandLine& cli, const std::string& checkpoint,
                               const Config& saved);

/// A model built for a task as the options ask, then loaded (--load, with the optimizer's state,
/// so that training resumes; or the mean of --average), trained for the budget, and saved.
class TrainingRun {
 public:
  /// Builds the model of `config` (from model_config) and its optimizer, and loads what the
  /// options ask for, saying so on `out`. `task` must outlive the run.
  TrainingRun(const Config& config, const RunOptions& options, const Task& task, std::ostream& out);

  /// The model, to train and to test.
  Transformer& model() { return model_; }
  /// Its parameters, as the optimizer sees them.
  const ParameterList& parameters() const { return params_; }
  /// Its optimizer (loaded with the saved state after --load).
  Adam& optimizer() { return optimizer_; }
  /// Its configuration.
  const Config& config() const { return model_.config(); }

  /// How to train: the options' budget (none after --load or --average unless one is given, so
  /// that `--load DIR` only tests; then nothing: there is nothing to train), the configuration's
  /// schedule, clipping and label smoothing, the held-out loss every --eval-every steps and the
  /// checkpoints of --save-every.
  std::optional<TrainingOptions> training_options() const;
  /// Says what training starts with (the learning rate; that the first step is traced), and from
  /// here to the end of save() lets Ctrl-C (or SIGTERM) end training after the current step:
  /// save() then keeps the model.
  void start_training(const TrainingOptions& options, std::ostream& out);
  /// The task's batch for step `index` + 1, at the model's batch size and seed (batch 0 for
  /// step 1, also after a resume: a resumed run sees the batches an uninterrupted one would).
  Batch training_batch(std::size_t index) const;
  /// Keeps the history of training (for save() and the loss curve), prints its summary line
  /// (tfm::summary) and returns it.
  std::string finish_training(const TrainingHistory& history, std::ostream& out);
  /// The three around tfm::train, on the task's batches, with the first step traced: the loop
  /// chapter 11's program writes out. Returns the summary line, "" if it did not train.
  std::string train(std::ostream& out);
  /// Saves to --save (if given; after a Ctrl-C without --save, to `<temp>/<program>-stopped-<pid>`);
  /// if that fails, to `<temp>/<program>-rescued-<pid>` instead and throws, saying where
  /// (tfm::save_checkpoint_or_rescue). An average is saved as weights only. Call it before any
  /// optional output, so that none of them can cost the model.
  void save(const std::string& program, std::ostream& out);
  /// Writes the loss curve of train() to `loss_curve_<task>.svg`; a failure is a warning.
  void write_loss_curve(std::ostream& out) const;
  /// Writes `results` to `results_<task>.txt`; a failure is a warning.
  void write_results(const std::string& results, std::ostream& out) const;
  /// The attention heat maps of one example (tfm::write_attention_maps): src `[1, S]` and the
  /// decoder input tgt_in `[1, T]`, for the options' layer and head. Returns the files written;
  /// a failure is a warning.
  std::vector<std::string> write_attention_maps(const TokenIds& src, const TokenIds& tgt_in,
                                                const std::string& prefix);

 private:
  const RunOptions options_;
  const Task& task_;
  Transformer model_;
  ParameterList params_;
  Adam optimizer_;
  CheckpointHeader header_;
  TrainingHistory history_;
  std::unique_ptr<StopOnSignal> stop_on_signal_;  // from start_training() to the end of save()
};

}  // namespace tfm
