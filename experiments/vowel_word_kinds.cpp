// The lab's analysis of a vowel-restoration checkpoint: its held-out vowels sorted by the kind
// of word they lie in (experiments/word_kinds.hpp), beside the 3-letter rule's.
//
//   ./build/bin/vowel_word_kinds --load DIR [--corpus FILE] [--eval-windows N] [--beam K]
//
// experiments/vowel_trials.py runs it on the checkpoint of every trial it records.
#include <iostream>

#include "tfm/machinery/checkpoint.hpp"
#include "tfm/machinery/command_line.hpp"
#include "word_kinds.hpp"

int main(int argc, char** argv) {
  return tfm::run_program([&] {
    tfm::CommandLine cli(
        "vowel_word_kinds",
        "The held-out vowels of a vowel-restoration checkpoint, by the kind of word they lie in.");
    cli.option("--load", "DIR", "the checkpoint to test (trained by ch11_train_test --task vowels)")
        .option("--corpus", "FILE", "the text it was trained on", tfm::kDefaultCorpusPath)
        .option("--eval-windows", "N", "held-out windows to test", "500")
        .option("--beam", "K", "beam search with K beams (1: greedy)", "1");
    if (!cli.parse(argc, argv)) return 0;
    if (!cli.given("--load"))
      throw tfm::UsageError("--load DIR is needed: the checkpoint to analyse");
    const std::size_t windows = cli.count("--eval-windows", 1, 100000),
                      beam = cli.count("--beam", 1, 64);
    const tfm::VowelTask task(cli.value("--corpus"));
    const tfm::CheckpointHeader header = tfm::read_checkpoint_header(cli.value("--load"));
    tfm::require_same_vocabulary(header.src_vocabulary, task.source_vocabulary(), "source");
    tfm::require_same_vocabulary(header.tgt_vocabulary, task.target_vocabulary(), "target");
    tfm::Transformer model(header.config, header.config.seed);
    tfm::load_parameters(cli.value("--load"), tfm::parameters_of(model));
    const experiments::WordKindAnalysis analysis =
        experiments::analyse_word_kinds(model, task, windows, beam);
    std::cout << analysis.windows << " held-out windows of " << task.data().options().window
              << " characters of " << cli.value("--corpus") << ", tested with "
              << cli.value("--load") << "\n"
              << experiments::word_kinds_text(analysis);
    return 0;
  });
}
