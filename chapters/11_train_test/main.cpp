// Chapter 11: train and test.
//
// The model of chapters 01-10 learns a task (copy, translate, vowels or pronounce) with a progress
// bar, a held-out loss and a loss curve; then it is tested by decoding — greedy with a key/value
// cache, or beam search — and, for vowel restoration, compared with n-gram baselines and with the
// outputs reference 002 reported; for pronunciations (CMUdict), with Festival's letter-to-sound
// rules and published error rates. Checkpoints save and resume everything.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <optional>

#include <xtensor/xview.hpp>

#include "tfm/core/trace.hpp"
#include "tfm/decode/letter_to_sound.hpp"
#include "tfm/decode/decoding.hpp"
#include "tfm/decode/evaluation.hpp"
#include "tfm/io/chapter_helpers.hpp"
#include "tfm/io/command_line.hpp"
#include "tfm/io/progress_bar.hpp"
#include "tfm/model/memory_estimate.hpp"
#include "tfm/train/checkpoint.hpp"
#include "tfm/train/task.hpp"
#include "tfm/train/trainer.hpp"

namespace {

using tfm::UsageError;

// [options]
// Every option of the chapter, read and checked in one place, before any data is read or any
// step is trained: a typo costs nothing.
struct Options {
  std::string task, corpus, save, load;
  std::string test_corpus;            // another book the trained model is also tested on
  std::vector<std::string> average;   // checkpoints whose mean weights are tested
  std::optional<std::size_t> seed;   // default: the checkpoint's, else the config's
  std::optional<std::size_t> steps;   // the budget; neither given: the task's steps
  std::optional<double> minutes;
  std::size_t save_every = 0, beam = 1, eval_windows = 500, eval_every = 100, head = 0;
  std::optional<std::size_t> layer;   // of the heat maps; default: the last
  std::optional<std::string> restore;
  std::string dictionary, lts_rules;
  std::vector<std::string> pronounce;  // words to pronounce
  std::size_t eval_words = 0, max_beam = 5;
  bool keep_letters = true;
};

tfm::CommandLine declare_options() {
  tfm::CommandLine cli("ch11_train_test",
                       "Chapter 11: train the Transformer on a task, then test it by decoding.");
  cli.option("--task", "NAME", "copy | translate | vowels | pronounce", "vowels")
      .config_options("", "override one hyper-parameter (see ch01_params --help); default: the task's model")
      .option("--corpus", "FILE", "vowels: the text to train and test on", tfm::kDefaultCorpusPath)
      .option("--test-corpus", "FILE", "vowels: also test on windows of another text (baselines fitted on --corpus)")
      .option("--steps", "N", "train for N steps (default: the task's budget)")
      .option("--minutes", "M", "train for at most M minutes")
      .option("--seed", "N", "seed of the weights, the dropout masks and the batches (default: 1, or the checkpoint's)")
      .option("--save", "DIR", "save a checkpoint after training")
      .option("--save-every", "N", "also save DIR-step<S> after every step S that is a multiple of N")
      .option("--load", "DIR", "start from a checkpoint (training resumes with its optimizer)")
      .repeated("--average", "DIR", "test the mean of the weights of these checkpoints (2 or more)")
      .option("--beam", "K", "beam search with K beams (1: greedy)", "1")
      .option("--restore", "TEXT", "restore the vowels of TEXT, e.g. \"th* t*m* m*ch*n*\"")
      .option("--dictionary", "FILE", "pronounce: Festival's CMUdict", tfm::kCmudictPath)
      .option("--lts-rules", "FILE", "pronounce: Festival's letter-to-sound rules, the baseline", tfm::kCmuLtsRulesPath)
      .repeated("--pronounce", "WORD", "pronounce: print the phonemes of WORD (repeat it, or give several words in one value)")
      .option("--eval-words", "N", "pronounce: test words to decode (0: all)", "0")
      .option("--max-beam", "K", "pronounce: test greedy decoding and beam search K = 1..K", "5")
      .option("--eval-windows", "N", "held-out windows to test vowels on", "500")
      .option("--eval-every", "N", "held-out loss every N steps (0: only at the end)", "100")
      .option("--layer", "L", "layer of the attention heat maps (default: the last)")
      .option("--head", "H", "head of the attention heat maps", "0")
      .flag("--free", "vowels: let the model rewrite the letters it was given too");
  return cli;
}

Options read_options(const tfm::CommandLine& cli) {
  Options o;
  o.task = cli.value("--task");
  const auto& names = tfm::task_names();
  if (std::find(names.begin(), names.end(), o.task) == names.end())
    throw UsageError("--task must be copy, translate, vowels or pronounce, got '" + o.task + "'");
  if (cli.given("--corpus") && o.task != "vowels") throw UsageError("--corpus needs --task vowels");
  for (const char* option : {"--dictionary", "--lts-rules", "--pronounce", "--eval-words", "--max-beam"})
    if (cli.given(option) && o.task != "pronounce") throw UsageError(std::string(option) + " needs --task pronounce");
  o.dictionary = cli.value("--dictionary");
  o.lts_rules = cli.value("--lts-rules");
  o.eval_words = cli.count("--eval-words");
  o.max_beam = cli.count("--max-beam", 1, 16);
  // Every value of --pronounce, cut at spaces: --pronounce "one two" --pronounce three.
  for (const std::string& value : cli.values("--pronounce")) {
    std::size_t start = value.find_first_not_of(' ');
    if (start == std::string::npos) throw UsageError("--pronounce: a word is empty");
    while (start != std::string::npos) {
      const std::size_t end = value.find(' ', start);
      o.pronounce.push_back(value.substr(start, end == std::string::npos ? std::string::npos : end - start));
      start = value.find_first_not_of(' ', end == std::string::npos ? value.size() : end);
    }
  }
  o.corpus = cli.value("--corpus");
  if (cli.given("--test-corpus") && o.task != "vowels") throw UsageError("--test-corpus needs --task vowels");
  o.test_corpus = cli.value("--test-corpus");
  if (cli.given("--seed")) o.seed = cli.count("--seed");
  if (cli.given("--steps")) o.steps = cli.count("--steps");
  if (cli.given("--minutes")) o.minutes = cli.positive_number("--minutes");
  o.save = cli.value("--save");
  o.load = cli.value("--load");
  o.average = cli.values("--average");
  if (cli.given("--save-every")) {
    if (o.save.empty()) throw UsageError("--save-every needs --save DIR (the checkpoints are DIR-step<S>)");
    o.save_every = cli.count("--save-every", 1, std::numeric_limits<std::size_t>::max());
  }
  if (!o.average.empty() && !o.load.empty())
    throw UsageError("--load and --average both choose the weights; give one of them");
  if ((!o.load.empty() || !o.average.empty()) && cli.given("--preset"))
    throw UsageError("--preset chooses a new model, but --load / --average test a saved one");
  if (!o.average.empty() && (cli.given("--steps") || cli.given("--minutes")))
    throw UsageError("--average makes a model to test, not to train on: Adam's state is not averaged");
  if (o.average.size() == 1)
    throw UsageError("--average needs 2 or more checkpoints (to test one, use --load " + o.average[0] + ")");
  o.beam = cli.count("--beam", 1, 64);
  o.eval_windows = cli.count("--eval-windows", 1, 100000);
  o.eval_every = cli.count("--eval-every");
  o.head = cli.count("--head");
  if (cli.given("--layer")) o.layer = cli.count("--layer");
  if (cli.given("--restore")) {
    if (o.task != "vowels") throw UsageError("--restore needs --task vowels");
    o.restore = cli.value("--restore");
  }
  o.keep_letters = !cli.flag_set("--free");
  if (!o.save.empty()) tfm::check_checkpoint_destination(o.save);
  return o;
}

// The model: the task's own, or --preset; then --set; or the configuration of --load / --average.
tfm::Config model_config(const tfm::CommandLine& cli, const Options& o, const tfm::Task& task) {
  for (const std::string& assignment : cli.values("--set"))
    for (const std::string& key : tfm::Task::data_keys())
      if (assignment.rfind(key + "=", 0) == 0)
        throw UsageError("--set " + key + ": chapter 11 takes it from the task's data");
  const std::string checkpoint = !o.load.empty() ? o.load : o.average.empty() ? "" : o.average.front();
  tfm::Config base = task.model;
  if (!checkpoint.empty()) {
    const tfm::CheckpointHeader header = tfm::read_checkpoint_header(checkpoint);
    tfm::require_same_vocabulary(header.src_vocabulary, task.src_vocabulary, "source");
    tfm::require_same_vocabulary(header.tgt_vocabulary, task.tgt_vocabulary, "target");
    base = header.config;
  }
  tfm::Config config = tfm::config_from_command_line(cli, base);  // --preset, then every --set
  if (checkpoint.empty()) config = task.fit(config);
  if (o.seed) config.seed = *o.seed;  // a resumed run may deliberately draw other batches
  config.validate();
  // A model larger than this machine is refused with its estimate, not met by bad_alloc later.
  tfm::require_memory(tfm::training_memory(config, config.batch_size));
  // What needs the model's sizes, checked before anything is built or trained.
  const std::size_t layers = std::min(config.n_encoder_layers, config.n_decoder_layers);
  if (o.layer.value_or(layers - 1) >= layers || o.head >= config.n_heads)
    throw UsageError("--layer/--head out of range: the model has " + std::to_string(config.n_encoder_layers) +
                     " + " + std::to_string(config.n_decoder_layers) + " layers and " +
                     std::to_string(config.n_heads) + " heads");
  if (o.restore) {
    try {
      tfm::restore_source_ids(task.src_vocabulary, *o.restore, config.max_len);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--restore: ") + e.what());
    }
  }
  if (!o.pronounce.empty()) {
    try {
      task.pronunciations->encode_words(o.pronounce, config.max_len);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--pronounce: ") + e.what());
    }
  }
  return config;
}
// [options]


}  // namespace

int main(int argc, char** argv) {
  return tfm::run_program([&] {
    tfm::CommandLine cli = declare_options();
    if (!cli.parse(argc, argv)) return 0;
    const Options o = read_options(cli);
    const tfm::Task task = tfm::make_task(o.task, o.corpus, o.dictionary);
    const tfm::Config config = model_config(cli, o, task);
    // pronounce: Festival's rules, the baseline, read before training (a bad file costs nothing).
    std::optional<tfm::LetterToSound> festival;
    if (task.pronunciations && o.pronounce.empty()) festival = tfm::LetterToSound::from_file(o.lts_rules);
    // The other book of --test-corpus, read before any step is trained: a bad file costs nothing.
    std::optional<tfm::VowelRestoration> book;
    if (!o.test_corpus.empty()) {
      try {
        book = tfm::VowelRestoration::from_file(o.test_corpus, {task.vowels->options().window, 1, 0.0});
      } catch (const std::exception& e) {
        throw std::runtime_error(std::string("--test-corpus: ") + e.what());
      }
    }

    // [build the model]
    tfm::Transformer model(config, config.seed);
    const tfm::ParameterList params = tfm::parameters_of(model);
    tfm::Adam optimizer(params, tfm::AdamOptions::paper());
    if (!o.load.empty()) {
      tfm::load_parameters(o.load, params);
      if (tfm::has_optimizer_state(o.load)) tfm::load_optimizer_state(o.load, params, optimizer);
      tfm::resume_training(model, optimizer);  // the dropout masks the saved run would draw next
      std::cout << "loaded " << o.load << " (" << optimizer.steps_taken() << " steps trained)\n";
    }
    if (!o.average.empty()) {
      tfm::load_averaged_parameters(o.average, params);
      std::cout << "loaded the mean of " << o.average.size() << " checkpoints' weights\n";
    }
    // [build the model]
    std::printf("task %s, model '%s': d_model %zu, %zu heads, %zu + %zu layers, d_ff %zu, %zu parameters\n",
                task.name.c_str(), config.preset.c_str(), config.d_model, config.n_heads,
                config.n_encoder_layers, config.n_decoder_layers, config.d_ff, params.count());

    // [train]
    // The budget: --steps and/or --minutes; else the task's steps, except after --load or
    // --average, where only an explicit budget trains (so that --load DIR --restore TEXT restores).
    tfm::TrainingOptions training = tfm::TrainingOptions::from_config(config);
    const bool use_default = !o.steps && !o.minutes && o.load.empty() && o.average.empty();
    training.max_steps = use_default ? task.default_steps : o.steps.value_or(0);
    training.max_seconds = 60.0 * o.minutes.value_or(0.0);
    training.eval_every = o.eval_every;
    const tfm::CheckpointHeader header{config, task.src_vocabulary, task.tgt_vocabulary};
    training.checkpoint_every = o.save_every;
    training.checkpoint = tfm::periodic_checkpoints(o.save, header, params, optimizer);
    std::string trained;  // the training's summary line, if it trained
    if (training.max_steps > 0 || training.max_seconds > 0) {
      std::cout << "learning rate: " << training.schedule.describe() << "\n\nThe first training step, traced:\n";
      tfm::trace::Enable trace;
      // The batch size is the model's: the task's default, or as --preset / --set chose.
      const auto batch = [&](std::size_t index) {
        return task.training_batch(index, config.batch_size, config.seed);
      };
      const tfm::TrainingHistory history = tfm::train(model, optimizer, batch, task.held_out, training,
                                                      std::cout, tfm::ProgressBar::stdout_is_terminal());
      trained = tfm::summary(history);
      std::cout << trained;
      const std::string curve = "loss_curve_" + task.name + ".svg";
      tfm::write_loss_curve_svg(curve, history, "Cross-entropy while training (" + task.name + ")");
      std::cout << "wrote " << curve << "\n";
    }
    // [train]
    // An average has no optimizer state of its own: it is saved as weights only.
    if (!o.save.empty()) {
      const std::string rescue = (std::filesystem::temp_directory_path() /
                                  ("ch11_train_test-rescued-" + std::to_string(::getpid()))).string();
      tfm::save_checkpoint_or_rescue(o.save, rescue, header, params, o.average.empty() ? &optimizer : nullptr);
      std::cout << "saved " << o.save << "\n";
    }

    // [test]
    if (o.restore) {
      std::cout << *o.restore << "  ->  " << tfm::restore_vowels(model, task, *o.restore, o.beam, o.keep_letters) << "\n";
      return 0;
    }
    if (!o.pronounce.empty()) {
      const std::vector<std::string> phonemes = tfm::pronounce_words(model, task, o.pronounce, o.beam);
      for (std::size_t i = 0; i < o.pronounce.size(); ++i) std::cout << o.pronounce[i] << "  ->  " << phonemes[i] << "\n";
      return 0;
    }
    std::cout << "\nTesting (" << (o.beam == 1 ? std::string("greedy decoding") : "beam search, K = " + std::to_string(o.beam))
              << ", key/value cache):\n";
    std::vector<std::size_t> beams;  // pronounce: greedy, then beam search with K = 1 .. --max-beam
    for (std::size_t k = 1; k <= o.max_beam; ++k) beams.push_back(k);
    std::string results =
        task.vowels           ? results_text(tfm::evaluate_vowels(model, task, o.eval_windows, o.beam))
        : task.pronunciations ? results_text(tfm::evaluate_pronunciations(model, task, o.eval_words, beams, *festival, o.lts_rules))
                              : results_text(tfm::evaluate_sequences(model, task, o.beam));
    if (book)
      results += "\n" + tfm::book_results_text(tfm::evaluate_vowels_on(model, task, *book, o.eval_windows, o.beam),
                                               std::filesystem::path(o.test_corpus).filename().string());
    std::cout << "\n" << results;
    // The same, with the training's summary, in a file the chapter's page includes.
    const std::string results_file = "results_" + task.name + ".txt";
    std::ofstream(results_file) << trained << "\n" << results;
    std::cout << "wrote " << results_file << "\n";
    // [test]

    const std::size_t layer = o.layer.value_or(std::min(config.n_encoder_layers, config.n_decoder_layers) - 1);
    tfm::TokenIds src = xt::view(task.held_out.front().src, xt::range(0, 1), xt::all());
    if (task.vowels) src = tfm::restore_source_ids(task.src_vocabulary, "th* t*m* tr*v*ll*r s*t d*wn", config.max_len);
    // pronounce: a word's letters (columns) against the phonemes the model writes (rows).
    if (task.pronunciations) src = task.pronunciations->encode_words({"pronunciation"}, config.max_len);
    const tfm::TokenIds tgt_in = tfm::shifted_right(tfm::decode(model, task, src, 1, o.keep_letters));
    const std::string prefix = task.pronunciations ? "attention_pronounce_" : "attention_";
    for (const std::string& file :
         tfm::write_attention_maps(model, src, tgt_in, task.src_vocabulary, task.tgt_vocabulary, layer, o.head, prefix))
      std::cout << "wrote " << file << "\n";
    return 0;
  });
}
