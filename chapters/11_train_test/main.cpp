// Chapter 11: train and test.
//
// The model of chapters 01-10 learns one of three tasks (copy, reference 001's toy translation,
// reference 002's vowel restoration) with a progress bar, a held-out loss and a loss curve; then
// it is tested by generating tokens — greedy decoding with a key/value cache, or beam search —
// and, for vowel restoration, compared with counting baselines and with the outputs reference 002
// reported.
// Checkpoints save and resume everything.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <xtensor/xview.hpp>

#include "tfm/core/trace.hpp"
#include "tfm/decode/decoding.hpp"
#include "tfm/engine/stopwatch.hpp"
#include "tfm/machinery/command_line.hpp"
#include "tfm/machinery/training_run.hpp"
#include "tfm/pictures/attention_pictures.hpp"
#include "tfm/support/format.hpp"
#include "tfm/support/progress_bar.hpp"
#include "tfm/tasks/copy_task.hpp"
#include "tfm/tasks/report.hpp"
#include "tfm/tasks/scoring.hpp"
#include "tfm/tasks/translation_task.hpp"
#include "tfm/tasks/vowel_task.hpp"
#include "tfm/train/trainer.hpp"

namespace {

using tfm::UsageError;

// Every option of the chapter, read and checked in one place, before any data is read or any
// step is trained: a typo costs nothing.
struct Options {
  std::string task, corpus;
  std::string test_corpus;  // another text the trained model is also tested on
  std::optional<std::string> restore;
  std::string attention_dir;  // with --restore -
  std::size_t eval_windows = 500;
  bool keep_letters = true;
  tfm::RunOptions run;  // the options every training run has
};

tfm::CommandLine declare_options() {
  tfm::CommandLine cli("ch11_train_test",
                       "Chapter 11: train the Transformer on a task, then test it by generating.");
  cli.option("--task", "NAME", "copy | translate | vowels", "vowels")
      .option("--corpus", "FILE", "vowels: the text to train and test on", tfm::kDefaultCorpusPath)
      .option("--test-corpus", "FILE",
              "vowels: also test on windows of another text (baselines fitted on --corpus)")
      .option("--restore", "TEXT",
              "vowels: restore the vowels of TEXT, e.g. \"th* t*m* m*ch*n*\"; - reads lines of "
              "plain text from standard input")
      .option("--attention-dir", "DIR",
              "with --restore -: write the attention maps of the last text into DIR")
      .option("--eval-windows", "N", "vowels: held-out windows to test on", "500")
      .flag("--free", "vowels: let the model rewrite the letters it was given too");
  tfm::RunOptions::Declared declared;
  declared.steps = "copy " + std::to_string(tfm::CopyTask::kDefaultSteps) + ", translate " +
                   std::to_string(tfm::TranslationTask::kDefaultSteps) + ", vowels " +
                   std::to_string(tfm::VowelTask::kDefaultSteps);
  tfm::RunOptions::declare(cli, declared);
  return cli;
}

Options read_options(const tfm::CommandLine& cli) {
  Options o;
  o.task = cli.value("--task");
  if (o.task != "copy" && o.task != "translate" && o.task != "vowels")
    throw UsageError("--task must be copy, translate or vowels, got '" + o.task + "'");
  for (const char* option : {"--corpus", "--test-corpus", "--restore", "--eval-windows", "--free"})
    if (cli.given(option) && o.task != "vowels")
      throw UsageError(std::string(option) + " needs --task vowels");
  o.corpus = cli.value("--corpus");
  o.test_corpus = cli.value("--test-corpus");
  if (cli.given("--restore")) o.restore = cli.value("--restore");
  o.attention_dir = cli.value("--attention-dir");
  if (cli.given("--attention-dir") && o.restore != "-")
    throw UsageError("--attention-dir needs --restore - (texts from standard input)");
  o.eval_windows = cli.count("--eval-windows", 1, 100000);
  o.keep_letters = !cli.flag_set("--free");
  o.run = tfm::RunOptions::read(cli);
  return o;
}

std::unique_ptr<tfm::Task> make_task(const Options& o) {
  if (o.task == "copy") return std::make_unique<tfm::CopyTask>();
  if (o.task == "translate") return std::make_unique<tfm::TranslationTask>();
  return std::make_unique<tfm::VowelTask>(o.corpus);
}

// [training loop]
// Trains the run's model for its budget, one batch a step. Returns the summary line, "" if there
// was nothing to train (--load or --average without --steps or --minutes: only test).
std::string train(tfm::TrainingRun& run, const tfm::Task& task) {
  const std::optional<tfm::TrainingOptions> options = run.training_options();
  if (!options) return "";
  tfm::CrossEntropy loss(tfm::kPadId, options->label_smoothing);
  run.start_training(*options, std::cout);  // from here, Ctrl-C ends training after a step
  const tfm::trace::Enable trace;           // the first step shows every shape it computes
  tfm::TrainingLoop loop(run.model(), run.optimizer(), task.held_out(), *options, std::cout,
                         tfm::ProgressBar::stdout_is_terminal());
  while (loop.next()) {  // until the budget is spent, or Ctrl-C
    const tfm::Batch batch = run.training_batch(loop.step() - 1);
    // forward, loss, backward, clipping, Adam
    const float value =
        tfm::train_step(run.model(), run.parameters(), run.optimizer(), loss, batch, *options);
    // the progress bar; when due, the held-out loss and a checkpoint (--save-every)
    loop.record(value, loss.counted_tokens());
  }
  return run.finish_training(loop.finish(), std::cout);  // kept for save() and the loss curve
}
// [training loop]

}  // namespace

int main(int argc, char** argv) {
  return tfm::run_program([&] {
    tfm::CommandLine cli = declare_options();
    if (!cli.parse(argc, argv)) return 0;
    const Options o = read_options(cli);
    const std::unique_ptr<tfm::Task> task = make_task(o);
    const auto* vowels =
        dynamic_cast<const tfm::VowelTask*>(task.get());  // null for copy and translate
    const tfm::Config config = tfm::model_config(cli, o.run, *task);
    if (o.restore && *o.restore != "-") {  // refused before anything is trained
      try {
        tfm::restore_source_ids(task->source_vocabulary(), *o.restore, config.max_len);
      } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--restore: ") + e.what());
      }
    }
    // The other text of --test-corpus, read before any step is trained: a bad file costs nothing.
    std::optional<tfm::VowelRestoration> test_text;
    if (!o.test_corpus.empty()) {
      try {
        test_text = tfm::VowelRestoration::from_file(o.test_corpus,
                                                     {vowels->data().options().window, 1, 0.0});
      } catch (const std::exception& e) {
        throw std::runtime_error(std::string("--test-corpus: ") + e.what());
      }
    }

    tfm::TrainingRun run(config, o.run, *task, std::cout);
    const std::string trained = train(run, *task);
    run.save("ch11_train_test", std::cout);  // first: no optional output can cost the model
    run.write_loss_curve(std::cout);

    tfm::Transformer& model = run.model();
    const std::size_t beam = o.run.beam;
    if (o.restore == "-")
      return tfm::restore_lines(std::cin, model, *vowels, beam, o.attention_dir) == 0 ? 0 : 1;
    if (o.restore) {
      std::cout << *o.restore << "  ->  "
                << vowels->restore(model, *o.restore, beam, o.keep_letters) << "\n";
      return 0;
    }
    std::cout << "\nTesting ("
              << (beam == 1 ? std::string("greedy decoding")
                            : "beam search, K = " + std::to_string(beam))
              << ", key/value cache):\n";
    const tfm::Clock::time_point testing_started = tfm::Clock::now();
    std::string results =
        vowels ? results_text(tfm::score_vowels(model, *vowels, o.eval_windows, beam))
               : results_text(tfm::score_sequences(model, *task, beam));
    if (test_text)
      results += "\n" + tfm::test_corpus_results_text(
                            tfm::score_vowels_on(model, *vowels, *test_text, o.eval_windows, beam),
                            std::filesystem::path(o.test_corpus).filename().string());
    // Decoding is the cost a beam multiplies: the time of the tests above, every text included.
    results += tfm::format("\ntested in %.1f s (%s)\n", tfm::seconds_since(testing_started),
                           beam == 1 ? "greedy" : ("beam " + std::to_string(beam)).c_str());
    std::cout << "\n" << results;
    run.write_results(trained + "\n" + results, std::cout);  // the chapter's page includes it

    // The attention of one example: a held-out sequence, or for vowels one of reference 002's sentences.
    tfm::TokenIds src = xt::view(task->held_out().front().src, xt::range(0, 1), xt::all());
    if (vowels)
      src = tfm::restore_source_ids(task->source_vocabulary(), "th* t*m* tr*v*ll*r s*t d*wn",
                                    config.max_len);
    const tfm::TokenIds generated =
        vowels ? vowels->generate(model, src, 1, o.keep_letters) : task->generate(model, src, 1);
    for (const std::string& file :
         run.write_attention_maps(src, tfm::shifted_right(generated), "attention_"))
      std::cout << "wrote " << file << "\n";
    return 0;
  });
}
