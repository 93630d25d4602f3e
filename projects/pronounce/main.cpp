// The pronunciation project: grapheme-to-phoneme conversion on CMUdict.
//
// The Transformer of chapters 01-10 learns to write the phonemes of a word from its letters, with
// chapter 11's training loop, checkpoints and decoding; then it is tested on every test word,
// greedily and with beam search, beside Festival's own letter-to-sound rules and published error
// rates. With a saved model it pronounces any word.
#include <iostream>
#include <optional>

#include "pronounce/letter_to_sound.hpp"
#include "pronounce/report.hpp"
#include "pronounce/scoring.hpp"
#include "pronounce/task.hpp"
#include "tfm/decode/decoding.hpp"
#include "tfm/machinery/command_line.hpp"
#include "tfm/machinery/training_run.hpp"

namespace {

using tfm::UsageError;

// Every option of the program, read and checked before any data is read or any step is trained.
struct Options {
  std::string dictionary, lts_rules;
  std::vector<std::string> words;  // to pronounce
  bool words_from_input = false;   // --pronounce -: lines of words from standard input
  std::string attention_dir;       // with --pronounce -
  std::size_t eval_words = 0, max_beam = 5;
  tfm::RunOptions run;  // the options every training run has
};

tfm::CommandLine declare_options() {
  tfm::CommandLine cli("pronounce",
                       "Train the Transformer to pronounce English words (CMUdict), then test it.");
  cli.option("--dictionary", "FILE", "Festival's CMUdict", pronounce::kCmudictPath)
      .option("--lts-rules", "FILE", "Festival's letter-to-sound rules, the baseline",
              pronounce::kCmuLtsRulesPath)
      .repeated("--pronounce", "WORD",
                "print the phonemes of WORD (repeat it, or give several words in one value); "
                "- reads lines of words from standard input")
      .option("--attention-dir", "DIR",
              "with --pronounce -: write the attention maps of the last word into DIR")
      .option("--eval-words", "N", "test words to decode (0: all)", "0")
      .option("--max-beam", "K", "test greedy decoding and beam search K = 1..K", "5");
  tfm::RunOptions::declare(cli);
  return cli;
}

Options read_options(const tfm::CommandLine& cli) {
  Options o;
  o.dictionary = cli.value("--dictionary");
  o.lts_rules = cli.value("--lts-rules");
  o.eval_words = cli.count("--eval-words");
  o.max_beam = cli.count("--max-beam", 1, 16);
  o.words_from_input = cli.values("--pronounce") == std::vector<std::string>{"-"};
  o.attention_dir = cli.value("--attention-dir");
  if (cli.given("--attention-dir") && !o.words_from_input)
    throw UsageError("--attention-dir needs --pronounce - (words from standard input)");
  // Every value of --pronounce, cut at spaces: --pronounce "one two" --pronounce three.
  for (const std::string& value :
       o.words_from_input ? std::vector<std::string>{} : cli.values("--pronounce")) {
    std::size_t start = value.find_first_not_of(' ');
    if (start == std::string::npos) throw UsageError("--pronounce: a word is empty");
    while (start != std::string::npos) {
      const std::size_t end = value.find(' ', start);
      o.words.push_back(
          value.substr(start, end == std::string::npos ? std::string::npos : end - start));
      start = value.find_first_not_of(' ', end == std::string::npos ? value.size() : end);
    }
  }
  if (!o.words.empty() || o.words_from_input)  // the test's options; --pronounce runs no test
    for (const char* option : {"--lts-rules", "--eval-words", "--max-beam"})
      if (cli.given(option))
        throw UsageError(std::string(option) +
                         " tests the model on the test words; --pronounce does not");
  o.run = tfm::RunOptions::read(cli);
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  return tfm::run_program([&] {
    tfm::CommandLine cli = declare_options();
    if (!cli.parse(argc, argv)) return 0;
    const Options o = read_options(cli);
    const pronounce::PronunciationTask task(o.dictionary);
    const tfm::Config config = tfm::model_config(cli, o.run, task);
    if (!o.words.empty()) {  // a word the model cannot read is refused before anything is trained
      try {
        task.data().encode_words(o.words, config.max_len);
      } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--pronounce: ") + e.what());
      }
    }
    // Festival's rules, the baseline, read before training (a bad file costs nothing).
    std::optional<pronounce::LetterToSound> festival;
    if (o.words.empty() && !o.words_from_input)
      festival = pronounce::LetterToSound::from_file(o.lts_rules);

    tfm::TrainingRun run(config, o.run, task, std::cout);
    const std::string trained = run.train(std::cout);
    run.save("pronounce", std::cout);  // first: no optional output can cost the model
    run.write_loss_curve(std::cout);

    tfm::Transformer& model = run.model();
    const std::size_t beam = o.run.beam;
    if (o.words_from_input)
      return pronounce::pronounce_lines(std::cin, model, task, beam, o.attention_dir) == 0 ? 0 : 1;
    if (!o.words.empty()) {
      const std::vector<std::string> phonemes = task.pronounce(model, o.words, beam);
      for (std::size_t i = 0; i < o.words.size(); ++i)
        std::cout << o.words[i] << "  ->  " << phonemes[i] << "\n";
      return 0;
    }
    std::cout << "\nTesting ("
              << (beam == 1 ? std::string("greedy decoding")
                            : "beam search, K = " + std::to_string(beam))
              << ", key/value cache):\n";
    std::vector<std::size_t> beams;  // greedy, then beam search with K = 1 .. --max-beam
    for (std::size_t k = 1; k <= o.max_beam; ++k) beams.push_back(k);
    const std::string results = results_text(
        pronounce::score_pronunciations(model, task, o.eval_words, beams, *festival, o.lts_rules));
    std::cout << "\n" << results;
    run.write_results(trained + "\n" + results, std::cout);

    // A word's letters (columns) against the phonemes the model writes (rows).
    const tfm::TokenIds src = task.data().encode_words({"pronunciation"}, config.max_len);
    const tfm::TokenIds tgt_in = tfm::shifted_right(task.generate(model, src, 1));
    for (const std::string& file : run.write_attention_maps(src, tgt_in, "attention_pronounce_"))
      std::cout << "wrote " << file << "\n";
    return 0;
  });
}
