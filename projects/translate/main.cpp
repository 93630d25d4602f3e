// The translation project: the Transformer learns Spanish -> English (or English -> Spanish) on
// the verses of two public-domain Bibles from Debian, and is scored with BLEU and chrF against
// copying the source, a word-by-word translation and Apertium, on test verses and on a book it
// never saw. Its page: projects/translate/README.md.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>
#include <xtensor/xview.hpp>

#include "tfm/core/matmul.hpp"
#include "tfm/decode/decoding.hpp"
#include "tfm/engine/stopwatch.hpp"
#include "tfm/machinery/checkpoint.hpp"
#include "tfm/machinery/command_line.hpp"
#include "tfm/machinery/loss_history.hpp"
#include "tfm/machinery/memory_estimate.hpp"
#include "tfm/machinery/saving.hpp"
#include "tfm/machinery/training_report.hpp"
#include "tfm/machinery/training_run.hpp"
#include "tfm/pictures/attention_pictures.hpp"
#include "tfm/support/progress_bar.hpp"
#include "tfm/support/stop_request.hpp"
#include "tfm/support/text_file.hpp"
#include "tfm/train/trainer.hpp"
#include "translate/baselines.hpp"
#include "translate/bible.hpp"
#include "translate/saved_data.hpp"
#include "translate/saved_direction.hpp"
#include "translate/translation_data.hpp"
#include "translate/translation_metrics.hpp"
#include "translate/translator.hpp"
#include "translate/verse_alignment.hpp"

namespace {

using tfm::UsageError;
using namespace translate;

// About five minutes on two cores (experiments/translate_recipe.py records the time).
constexpr std::size_t kDefaultSteps = 1500;
constexpr std::size_t kDefaultSymbols = 4000;
constexpr std::size_t kDefaultBatchTokens = 1500;
constexpr std::size_t kDefaultTestVerses = 400;
constexpr std::size_t kDefaultLongest = 120;

// [model]
// The default model: the paper's base model at a quarter of its width and half its layers
// (d_model 128, 4 heads, 3 + 3 layers, d_ff 512), its label smoothing (0.1), Adam and warm-up;
// one embedding table for both languages (the vocabulary is shared). Small, because five minutes
// of two cores is the budget: a wider model takes fewer, slower steps and ends behind. No dropout:
// a run this short sees each training verse only a few times, far from learning them by heart.
tfm::Config translation_model() {
  tfm::Config c = tfm::preset("vowels");
  c.preset = "translate";
  c.d_model = 128;
  c.n_heads = 4;
  c.n_encoder_layers = c.n_decoder_layers = 3;
  c.d_ff = 512;
  c.dropout = 0.0f;
  c.label_smoothing = 0.1f;
  c.learning_rate = 2e-3f;
  c.warmup_steps = 300;
  c.shared_embedding = true;
  c.scaled_embedding_init = true;
  c.attention_bias = true;
  return c;
}
// [model]

// What the data decides; a --set of them is refused.
const std::vector<std::string>& data_keys() {
  static const std::vector<std::string> keys = {"src_vocab_size", "tgt_vocab_size", "src_len",
                                                "tgt_len", "batch_size"};
  return keys;
}

struct Options {
  tfm::RunOptions run;  // the options every training run has
  Direction direction = Direction::kSpanishToEnglish;
  std::size_t symbols = kDefaultSymbols, batch_tokens = kDefaultBatchTokens,
              longest = kDefaultLongest;
  std::size_t test_verses = kDefaultTestVerses, show = 5;
  float alpha = 0.6f;
  std::string export_test_set;
  std::vector<std::string> translate;
  std::string attention_dir;  // with --translate -
  bool greedy_too = true;
};

tfm::CommandLine declare_options() {
  tfm::CommandLine cli(
      "translate",
      "Train the Transformer to translate Bible verses (Reina-Valera 1909 -> World English "
      "Bible),\n"
      "then score it with BLEU and chrF beside copying, word by word and Apertium.");
  cli.option("--direction", "es-en|en-es", "which way to translate", "es-en")
      .option("--symbols", "N", "subword symbols the tokenizer learns",
              std::to_string(kDefaultSymbols))
      .option("--batch-tokens", "N", "tokens per training batch, padding included",
              std::to_string(kDefaultBatchTokens))
      .option("--longest", "N", "leave training verses longer than N subwords out",
              std::to_string(kDefaultLongest))
      .option("--alpha", "A", "the length penalty's alpha of beam search", "0.6")
      .repeated("--translate", "TEXT",
                "translate TEXT and stop (no test); - reads texts from standard input, one a line")
      .option("--attention-dir", "DIR",
              "with --translate -: write the attention maps of the last text into DIR")
      .option("--test-verses", "N", "test on N test verses spread over the test set (0: all)",
              std::to_string(kDefaultTestVerses))
      .option("--show", "N", "print N test verses and N of the held-out book side by side", "5")
      .option("--export-test-set", "FILE",
              "write the test verses (echoes included) with the two simple baselines as TSV, "
              "and stop")
      .flag("--no-greedy", "test beam search only (skip the greedy row)");
  tfm::RunOptions::declare(cli, {"the translation model", /*beam=*/4, /*heat_map=*/false});
  return cli;
}

Options read_options(const tfm::CommandLine& cli) {
  Options o;
  try {
    o.direction = parse_direction(cli.value("--direction"));
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--direction: ") + e.what());
  }
  o.symbols = cli.count("--symbols", 100, 100000);
  o.batch_tokens = cli.count("--batch-tokens", 16, 10000000);
  o.longest = cli.count("--longest", 8, 100000);
  if (o.batch_tokens <= o.longest)
    throw UsageError("--batch-tokens " + std::to_string(o.batch_tokens) +
                     " cannot hold a verse of --longest " + std::to_string(o.longest) +
                     " subwords (and its <bos> or <eos>)");
  o.run = tfm::RunOptions::read(cli);
  if ((!o.run.load.empty() || !o.run.average.empty()) && cli.given("--symbols"))
    throw UsageError("--symbols learns a new tokenizer, but --load / --average use a saved one");
  o.alpha = static_cast<float>(cli.number("--alpha"));
  if (!(o.alpha >= 0.0f && o.alpha <= 10.0f))
    throw UsageError("--alpha must be from 0 to 10, got '" + cli.value("--alpha") + "'");
  o.translate = cli.values("--translate");
  o.attention_dir = cli.value("--attention-dir");
  if (cli.given("--attention-dir") && o.translate != std::vector<std::string>{"-"})
    throw UsageError("--attention-dir needs --translate - (texts from standard input)");
  for (const std::string& text : o.translate)
    if (text.find_first_not_of(" \t\n\r") == std::string::npos)
      throw UsageError("--translate: the text is empty");
  o.test_verses = cli.count("--test-verses");
  o.show = cli.count("--show");
  o.export_test_set = cli.value("--export-test-set");
  if (!o.export_test_set.empty())  // it writes the file and stops: an action beside it is refused
    for (const char* action : {"--translate", "--steps", "--minutes", "--save"})
      if (cli.given(action))
        throw UsageError(std::string("--export-test-set writes the test set and stops; ") + action +
                         " would be ignored: give one of them");
  for (const std::string& assignment : cli.values("--set"))
    for (const std::string& key : data_keys())
      if (assignment.rfind(key + "=", 0) == 0)
        throw UsageError(
            "--set " + key +
            ": the translation takes it from the data (see --batch-tokens, --longest)");
  o.greedy_too = !cli.flag_set("--no-greedy") && o.run.beam > 1;
  if (cli.flag_set("--no-greedy") && o.run.beam == 1)
    throw UsageError("--no-greedy needs --beam K > 1");
  return o;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The model: the translation model or --preset, then --set; or the configuration of --load / --average.
tfm::Config model_config(const tfm::CommandLine& cli, const Options& o, const TranslationData& data,
                         const std::optional<tfm::CheckpointHeader>& saved) {
  if (saved) tfm::require_same_architecture(cli, o.run.saved_checkpoint(), saved->config);
  tfm::Config config =
      tfm::config_from_command_line(cli, saved ? saved->config : translation_model());
  if (!saved) {
    config.src_vocab_size = config.tgt_vocab_size = data.vocabulary().size();
    config.src_len = config.tgt_len = o.longest + 1;
    config.batch_size = std::max<std::size_t>(1, o.batch_tokens / (o.longest + 1));
    config.max_len = std::max(config.max_len, 2 * data.longest_tokens() + 12);
  }
  if (o.run.seed) config.seed = *o.run.seed;
  config.validate();
  tfm::require_memory(tfm::training_memory(config, config.batch_size));
  return config;
}

// The verses of a part, or `limit` of them spread evenly over it (every k-th), so that a short
// test still samples every book.
std::vector<const ParallelVerse*> chosen_verses(const TranslationData& data, Part part,
                                                std::size_t limit) {
  const auto& all = data.verses(part);
  std::vector<const ParallelVerse*> chosen;
  const std::size_t n = limit == 0 ? all.size() : std::min(limit, all.size());
  for (std::size_t i = 0; i < n; ++i) chosen.push_back(&all[i * all.size() / n]);
  return chosen;
}

struct System {
  std::string name;
  std::vector<std::string> outputs;  // empty: it did not run
  std::string note;
  std::string label;  // its name in the side-by-side verses
};

struct Scored {
  std::string part;  // "test" or the book
  std::vector<const ParallelVerse*> verses;
  std::vector<std::string> references;  // the target text of each verse
  std::vector<System> systems;
};

// The first line of a table with a column per part: its title, then each part and its size.
void write_table_header(std::ostream& out, const std::string& title,
                        const std::vector<Scored>& parts) {
  out << std::left << std::setw(34) << title;
  for (const Scored& p : parts)
    out << std::setw(28) << (p.part + " (" + std::to_string(p.verses.size()) + " verses)");
  out << "\n";
}

bool is_model(const System& s) {
  return s.name.rfind("model", 0) == 0;
}

std::string score_table(const std::vector<Scored>& parts) {
  std::ostringstream out;
  write_table_header(out, "BLEU / chrF", parts);
  for (std::size_t s = 0; s < parts.front().systems.size(); ++s) {
    out << std::setw(34) << parts.front().systems[s].name;
    for (const Scored& p : parts) {
      const System& system = p.systems[s];
      if (system.outputs.empty()) {
        out << std::setw(28) << "-";
        continue;
      }
      char cell[64];
      std::snprintf(cell, sizeof cell, "%6.2f / %5.2f",
                    corpus_bleu(system.outputs, p.references).bleu,
                    corpus_chrf(system.outputs, p.references));
      out << std::setw(28) << cell;
    }
    out << "\n";
  }
  for (const Scored& p : parts)
    for (const System& system : p.systems) {
      if (!system.note.empty())
        out << system.name << " (" << p.part << "): " << system.note << "\n";
      if (system.outputs.empty()) continue;
      if (is_model(system))
        out << system.name << ", " << p.part
            << ", sacreBLEU's line: " << corpus_bleu(system.outputs, p.references).to_string()
            << "\n";
    }
  return out.str();
}

// How often each system writes the reference's names, and how much it repeats itself (the
// reference's own repeats beside them: a list in a verse repeats too).
std::string names_and_loops_table(const std::vector<Scored>& parts) {
  std::ostringstream out;
  write_table_header(out, "names kept / 4-gram repeats, %", parts);
  const auto cell = [](double names, double repeats) {
    char text[64];
    std::snprintf(text, sizeof text, "%6.2f / %5.2f", names, repeats);
    return std::string(text);
  };
  for (std::size_t s = 0; s < parts.front().systems.size(); ++s) {
    out << std::setw(34) << parts.front().systems[s].name;
    for (const Scored& p : parts) {
      const System& system = p.systems[s];
      out << std::setw(28)
          << (system.outputs.empty() ? std::string("-")
                                     : cell(names_kept(system.outputs, p.references).percent(),
                                            repeated_ngrams(system.outputs).percent()));
    }
    out << "\n";
  }
  out << std::setw(34) << "the reference";
  for (const Scored& p : parts)
    out << std::setw(28)
        << cell(names_kept(p.references, p.references).percent(),
                repeated_ngrams(p.references).percent());
  out << "\n";
  for (const Scored& p : parts) {
    const NamesKept names = names_kept(p.references, p.references);
    out << p.part << ": " << names.names << " names in the references\n";
  }
  return out.str();
}

// Every system ranked by each measure, and the model (its last row: beam search) against the
// best baseline by that measure, with the paired bootstrap's 95 % interval of the difference.
std::string rankings(const std::vector<Scored>& parts) {
  std::ostringstream out;
  char line[200];
  for (const Scored& p : parts) {
    std::vector<const System*> ran;
    for (const System& s : p.systems)
      if (!s.outputs.empty()) ran.push_back(&s);
    const System* model = nullptr;
    for (const System* s : ran)
      if (is_model(*s)) model = s;
    for (const Measure m : {Measure::kBleu, Measure::kChrf}) {
      std::vector<std::pair<double, const System*>> ranked;
      for (const System* s : ran) ranked.emplace_back(corpus_score(s->outputs, p.references, m), s);
      std::stable_sort(ranked.begin(), ranked.end(),
                       [](const auto& a, const auto& b) { return a.first > b.first; });
      out << p.part << ", ranked by " << measure_name(m) << ":";
      for (std::size_t i = 0; i < ranked.size(); ++i) {
        std::snprintf(line, sizeof line, "%s %s %.2f", i ? " >" : "",
                      ranked[i].second->name.c_str(), ranked[i].first);
        out << line;
      }
      out << "\n";
      const System* best = nullptr;
      for (const auto& [score, s] : ranked)
        if (!is_model(*s) && s->name != "copy the source" && !best) best = s;
      if (!model || !best) continue;
      const PairedBootstrap b = paired_bootstrap(model->outputs, best->outputs, p.references, m);
      std::snprintf(line, sizeof line,
                    "  %s - %s (the best baseline by %s): %+.2f, 95 %% interval [%+.2f, %+.2f]",
                    model->name.c_str(), best->name.c_str(), measure_name(m), b.a - b.b, b.low,
                    b.high);
      out << line << ": "
          << (b.a_ahead()    ? "the model is ahead"
              : b.a_behind() ? "the model is behind"
                             : "not significant (the interval holds 0)")
          << "\n";
    }
  }
  out << "(paired bootstrap: 1000 resamples of the verses, seed 12345, as sacreBLEU's "
         "--paired-bs)\n";
  return out.str();
}

std::string side_by_side(const Scored& part, const TranslationData& data, std::size_t count) {
  std::ostringstream out;
  const std::size_t n = std::min(count, part.verses.size());
  for (std::size_t i = 0; i < n; ++i) {
    // [fixed rule]
    // Verses spread evenly over the part (its first and last among them), not the first few of
    // Genesis: chosen by their place, not by hand.
    const std::size_t k = n <= 1 ? 0 : i * (part.verses.size() - 1) / (n - 1);
    // [fixed rule]
    const ParallelVerse& v = *part.verses[k];
    out << v.ref.osis() << "\n  source     " << data.source_text(v) << "\n";
    // The model first, then Apertium, then word by word.
    for (const int rank : {0, 1, 2})
      for (const System& s : part.systems) {
        const int its_rank = is_model(s) ? 0 : s.label.rfind("Ap", 0) == 0 ? 1 : 2;
        if (its_rank == rank && !s.outputs.empty() && !s.label.empty())
          out << "  " << std::left << std::setw(11) << s.label << s.outputs[k] << "\n";
      }
    out << "  reference  " << data.target_text(v) << "\n";
  }
  return out.str();
}

// The cross-attention of the last decoder layer, averaged over the heads, for one verse: which
// source subwords each target subword reads.
std::string write_cross_attention(tfm::Transformer& model, const TranslationData& data,
                                  const std::string& source, const std::string& translation) {
  const tfm::TokenIds src = data.encode_sources({source});
  std::vector<std::int32_t> ids;
  for (const std::string& piece : data.tokenizer().encode(translation))
    ids.push_back(data.vocabulary().contains(piece) ? data.vocabulary().id(piece) : tfm::kUnkId);
  ids.push_back(tfm::kEosId);
  tfm::TokenIds tokens = xt::zeros<std::int32_t>({std::size_t{1}, ids.size()});
  for (std::size_t i = 0; i < ids.size(); ++i) tokens(0, i) = ids[i];
  const tfm::TokenIds tgt_in = tfm::shifted_right(tokens);
  tfm::EvaluationMode eval(model);
  model.forward(src, tgt_in);
  const tfm::Tensor4& weights = model.decoder.layers.back().cross_attn.attention_weights();
  tfm::Tensor2 mean = tfm::attention_head(weights, 0, 0);
  for (std::size_t h = 1; h < weights.shape(1); ++h) mean += tfm::attention_head(weights, 0, h);
  mean /= static_cast<float>(weights.shape(1));
  const auto labels = [&](const tfm::TokenIds& t) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < t.shape(1); ++i) out.push_back(data.vocabulary().symbol(t(0, i)));
    return out;
  };
  std::vector<std::string> outputs;  // what each row predicts
  for (const std::int32_t id : ids) outputs.push_back(data.vocabulary().symbol(id));
  const std::string file = "cross_attention_translate.svg";
  tfm::write_attention_heatmap(
      file, "Cross-attention, last decoder layer, mean of the heads: row = the subword written",
      mean, outputs, labels(src), /*unit_scale=*/false);
  return file;
}

}  // namespace

int main(int argc, char** argv) {
  return tfm::run_program([&] {
    tfm::CommandLine cli = declare_options();
    if (!cli.parse(argc, argv)) return 0;
    Options o = read_options(cli);
    const auto start = std::chrono::steady_clock::now();
    const std::string checkpoint = o.run.saved_checkpoint();
    std::optional<tfm::CheckpointHeader> saved;
    if (!checkpoint.empty()) {  // read first: a contradicting --direction costs nothing
      saved = tfm::read_checkpoint_header(checkpoint);
      o.direction = direction_to_use(*saved, checkpoint, o.direction, cli.given("--direction"));
    }

    const ParallelReading reading = read_parallel(spanish_bible(), english_bible());
    const AlignedVerses aligned = align_verses(reading.verses);
    std::cout << aligned.report.summary() << "\n";
    SplitVerses parts = split_verses(aligned.pairs);
    // The scored test set without echoes of training verses (the whole test part for
    // --export-test-set: the BLEU fixture of tests/fixtures is made from it).
    if (o.export_test_set.empty()) {
      const std::size_t before = parts[static_cast<int>(Part::kTest)].size();
      std::cout << remove_echoes(parts).summary(before) << "\n";
    }
    std::optional<TranslationData> loaded_data;
    if (saved) {
      loaded_data.emplace(
          saved_translation_data(checkpoint, *saved, std::move(parts), o.direction, o.longest));
    } else {
      loaded_data.emplace(std::move(parts), o.direction, o.symbols, o.longest);
    }
    const TranslationData& data = *loaded_data;
    std::cout << data.summary() << "\n";

    if (!o.export_test_set.empty()) {  // for tests/fixtures/make_bleu_fixtures.py
      std::vector<TextPair> train;
      for (const ParallelVerse& v : data.verses(Part::kTrain))
        train.emplace_back(data.source_text(v), data.target_text(v));
      const WordByWord word_by_word = WordByWord::learn(train);
      std::ostringstream out;
      out << "verse\tsource\treference\tcopy\tword_by_word\n";
      for (const ParallelVerse& v : data.verses(Part::kTest))
        out << v.ref.osis() << "\t" << data.source_text(v) << "\t" << data.target_text(v) << "\t"
            << data.source_text(v) << "\t" << word_by_word.translate(data.source_text(v)) << "\n";
      tfm::write_text_file(o.export_test_set, out.str());  // checked to its last byte
      std::cout << "wrote " << o.export_test_set << "\n";
      return 0;
    }

    const tfm::Config config = model_config(cli, o, data, saved);
    tfm::Transformer model(config, config.seed);
    const tfm::ParameterList params = tfm::parameters_of(model);
    tfm::Adam optimizer(params, tfm::AdamOptions::paper());
    tfm::load_chosen_weights(o.run, model, params, optimizer, std::cout);
    std::printf(
        "model '%s': d_model %zu, %zu heads, %zu + %zu layers, d_ff %zu, %zu parameters, %s\n",
        config.preset.c_str(), config.d_model, config.n_heads, config.n_encoder_layers,
        config.n_decoder_layers, config.d_ff, params.count(), direction_name(o.direction));

    tfm::TrainingOptions training = tfm::TrainingOptions::from_config(config);
    const bool use_default = !o.run.steps && !o.run.minutes && o.run.load.empty() &&
                             o.run.average.empty() && o.translate.empty();
    training.max_steps = use_default ? kDefaultSteps : o.run.steps.value_or(0);
    training.max_seconds = 60.0 * o.run.minutes.value_or(0.0);
    training.eval_every = o.run.eval_every;
    training.trace_first_step = false;
    tfm::CheckpointHeader header{config,
                                 data.vocabulary(),
                                 data.vocabulary(),
                                 {{kTokenizerFile, data.tokenizer().to_text()},
                                  {kDirectionFile, direction_file_text(o.direction)}}};
    header.run =
        saved && !o.run.load.empty() && !saved->run.empty() ? saved->run : tfm::new_run_id();
    if (saved && !o.run.load.empty()) tfm::keep_loss_history(*saved, o.run.load, header, std::cout);
    training.checkpoint_every = o.run.save_every;
    training.checkpoint = tfm::periodic_checkpoints(o.run.save, header, params, optimizer);
    std::string trained;
    tfm::TrainingHistory history;
    // Ctrl-C ends training after a step; the model is saved below. Only until then: a signal
    // while testing ends the program.
    std::optional<tfm::StopOnSignal> stop_on_signal;
    stop_on_signal.emplace();
    if (training.max_steps > 0 || training.max_seconds > 0) {
      std::cout << "learning rate: " << training.schedule.describe() << "; batches of at most "
                << o.batch_tokens << " tokens\n";
      const std::vector<tfm::Batch> held_out = data.batches(Part::kDev, o.batch_tokens);
      const auto batch = [&](std::size_t index) {
        return data.training_batch(index, o.batch_tokens, config.seed);
      };
      history = tfm::train(model, optimizer, batch, held_out, training, std::cout,
                           tfm::ProgressBar::stdout_is_terminal());
      trained = tfm::summary(history);
      std::cout << trained;
    }
    // The save comes first: no optional output below can cost the model.
    tfm::save_trained_model("translate", o.run.save, history, header, params,
                            o.run.average.empty() ? &optimizer : nullptr, std::cout);
    stop_on_signal.reset();
    if (!history.steps.empty() && tfm::write_side_output([&] {
          tfm::write_loss_curve_svg("loss_curve_translate.svg",
                                    tfm::joined(tfm::saved_loss_history(header), history),
                                    "Cross-entropy while training (translate)");
        }))
      std::cout << "wrote loss_curve_translate.svg\n";

    const DecodingChoice beam{o.run.beam, o.alpha, 32}, greedy{1, 0.0f, 32};
    if (o.translate == std::vector<std::string>{"-"})
      return translate_lines(std::cin, model, data, beam, o.attention_dir) == 0 ? 0 : 1;
    if (!o.translate.empty()) {
      for (const std::string& text : o.translate) {
        const std::string note = unknown_characters_note(data, text);
        if (!note.empty()) std::cout << "note: " << note << "\n";
        std::cout << text << "\n  ->  " << translate_texts(model, data, {text}, beam)[0] << "\n";
        // Apertium beside it, for a text of today's Spanish (when it is installed).
        if (o.direction == Direction::kSpanishToEnglish) {
          const ApertiumRun apertium = run_apertium({text}, "spa-eng");
          if (apertium.ran) std::cout << "  Apertium: " << apertium.outputs[0] << "\n";
        }
      }
      return 0;
    }

    std::cout << "\nTesting: "
              << (o.run.beam > 1 ? "beam search, K = " + std::to_string(o.run.beam) +
                                       ", alpha = " + std::to_string(o.alpha).substr(0, 4)
                                 : std::string("greedy decoding"))
              << (o.greedy_too ? ", and greedy decoding" : "")
              << "; baselines on the same verses\n";
    std::vector<TextPair> train;
    for (const ParallelVerse& v : data.verses(Part::kTrain))
      train.emplace_back(data.source_text(v), data.target_text(v));
    const WordByWord word_by_word = WordByWord::learn(train);
    // Apertium a second time, on the Spanish as it is written today (Spanish -> English only).
    const bool spanish_source = o.direction == Direction::kSpanishToEnglish;
    const Modernisation modern = Modernisation::learn(train, word_by_word);
    const std::string apertium_mode =
        o.direction == Direction::kSpanishToEnglish ? "spa-eng" : "eng-spa";
    std::vector<Scored> scored;
    for (const Part part : {Part::kTest, Part::kHeldOutBook}) {
      Scored s{part == Part::kTest ? "test" : kHeldOutBook,
               chosen_verses(data, part, part == Part::kTest ? o.test_verses : 0),
               {},
               {}};
      std::vector<std::string> sources;
      for (const ParallelVerse* v : s.verses) {
        sources.push_back(data.source_text(*v));
        s.references.push_back(data.target_text(*v));
      }
      std::vector<std::string> wbw;
      for (const std::string& text : sources) wbw.push_back(word_by_word.translate(text));
      const ApertiumRun apertium = run_apertium(sources, apertium_mode);
      s.systems.push_back({"copy the source", sources, "", ""});
      s.systems.push_back({"word by word", wbw, "", "words"});
      s.systems.push_back(
          {"Apertium " + apertium_mode, apertium.outputs, apertium.problem, "Apertium"});
      if (spanish_source) {
        std::vector<std::string> modern_sources;
        for (const std::string& text : sources) modern_sources.push_back(modern.apply(text));
        const ApertiumRun modern_run = run_apertium(modern_sources, apertium_mode);
        s.systems.push_back(
            {"Apertium, modern spelling", modern_run.outputs, modern_run.problem, "Apertium*"});
      }
      const auto decode_start = std::chrono::steady_clock::now();
      if (o.greedy_too || o.run.beam == 1)
        s.systems.push_back(
            {"model, greedy", translate_texts(model, data, sources, greedy), "", "greedy"});
      const double greedy_seconds = seconds_since(decode_start);
      if (o.run.beam > 1)
        s.systems.push_back({"model, beam " + std::to_string(o.run.beam),
                             translate_texts(model, data, sources, beam), "",
                             "beam " + std::to_string(o.run.beam)});
      std::printf("%s: %zu verses decoded in %.1f s (greedy) and %.1f s (beam)\n", s.part.c_str(),
                  s.verses.size(), greedy_seconds, seconds_since(decode_start) - greedy_seconds);
      scored.push_back(std::move(s));
    }
    std::ostringstream results;
    if (!trained.empty()) results << trained;
    if (spanish_source) results << "Apertium, modern spelling: " << modern.describe() << "\n";
    results << score_table(scored) << rankings(scored) << names_and_loops_table(scored);
    if (o.show > 0) {
      results << "\nTest verses side by side:\n" << side_by_side(scored.front(), data, o.show);
      results << "\n"
              << kHeldOutBook << " side by side:\n"
              << side_by_side(scored.back(), data, o.show);
    }
    std::cout << "\n" << results.str();
    if (tfm::write_side_output(
            [&] { tfm::write_text_file("results_translate.txt", results.str()); }))
      std::cout << "wrote results_translate.txt\n";
    // Every translation of both parts, for a closer look (and for NLTK in
    // experiments/translate_recipe.py): translations_test.tsv, translations_Ruth.tsv.
    for (const Scored& part : scored) {
      std::ostringstream tsv;
      tsv << "verse\tsource\treference";
      for (const System& s : part.systems) tsv << "\t" << s.name;
      tsv << "\n";
      for (std::size_t i = 0; i < part.verses.size(); ++i) {
        const ParallelVerse& v = *part.verses[i];
        tsv << v.ref.osis() << "\t" << data.source_text(v) << "\t" << data.target_text(v);
        for (const System& s : part.systems) tsv << "\t" << (s.outputs.empty() ? "" : s.outputs[i]);
        tsv << "\n";
      }
      const std::string file = "translations_" + part.part + ".tsv";
      if (tfm::write_side_output([&] { tfm::write_text_file(file, tsv.str()); }))
        std::cout << "wrote " << file << "\n";
    }
    // The heat map: the book's first verse, as the model translated it (beam search).
    const Scored& book = scored.back();
    if (!book.verses.empty())
      tfm::write_side_output([&] {
        std::cout << "wrote "
                  << write_cross_attention(model, data, data.source_text(*book.verses.front()),
                                           book.systems.back().outputs.front())
                  << " (" << book.verses.front()->ref.osis() << ")\n";
      });
    std::printf("done in %.0f s\n", seconds_since(start));
    return 0;
  });
}
