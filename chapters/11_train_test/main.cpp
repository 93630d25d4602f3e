// Chapter 11: train and test.
//
// The model of chapters 01-10 learns a task (copy, translate or vowels), with a progress bar, a
// held-out loss and a loss curve; then it is tested by decoding — greedy with a key/value cache,
// or beam search — and, for vowel restoration, compared with two baselines and with the
// outputs reference 002 reported. Checkpoints save and resume everything.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>

#include <xtensor/xview.hpp>

#include "tfm/beam_search.hpp"
#include "tfm/checkpoint.hpp"
#include "tfm/command_line.hpp"
#include "tfm/copy_task.hpp"
#include "tfm/decoding.hpp"
#include "tfm/heatmap.hpp"
#include "tfm/line_chart.hpp"
#include "tfm/progress_bar.hpp"
#include "tfm/toy_translation.hpp"
#include "tfm/trace.hpp"
#include "tfm/trainer.hpp"
#include "tfm/vowel_metrics.hpp"
#include "tfm/vowel_restoration.hpp"

using namespace tfm;

namespace {

// Reference 002's three test inputs, what it printed, and what they should say.
struct ReferenceExample {
  const char* input;
  const char* reference_output;
  const char* expected;
};
const ReferenceExample kReferenceExamples[] = {
    {"th* t*m* tr*v*ll*r s*t d*wn", "the time trave traveller sa", "the time traveller sat down"},
    {"h* m*d* * w*nd*rf*l d*sc*v*ry", "he made i wonderful discovery", "he made a wonderful discovery"},
    {"*t w*s * d*rk *nd st*rmy n*ght", "it was a a dark andark and sto", "it was a dark and stormy night"},
};

// [task]
// What training and testing need from a task: its vocabularies, its batches and its model size.
struct Task {
  std::string name;
  Vocabulary src_vocabulary, tgt_vocabulary;
  std::function<Batch(std::size_t batch_size)> next_batch;  // a fresh training batch
  std::vector<Batch> held_out;        // the batches of the held-out loss
  Config model;                       // the task's default model (a preset plus its sizes)
  std::size_t default_steps = 0;      // the default budget, in steps ...
  double default_minutes = 0.0;       // ... or in minutes
};
// [task]

Config sized(Config c, const Vocabulary& src, const Vocabulary& tgt, std::size_t src_len,
             std::size_t tgt_len) {
  c.src_vocab_size = src.size();
  c.tgt_vocab_size = tgt.size();
  c.src_len = src_len;
  c.tgt_len = tgt_len;
  return c;
}

// A small model for the two toy tasks: they need few parameters and no dropout.
Config toy_model(const std::string& name) {
  Config c = preset("tiny");
  c.preset = name;
  c.d_model = 32; c.n_heads = 4; c.d_ff = 64; c.dropout = 0.0f; c.batch_size = 32;
  // Measured: with these, copy decodes all of 128 held-out sequences after 1000 steps (seeds 1-3).
  c.learning_rate = 1e-2f; c.warmup_steps = 50; c.scaled_embedding_init = true;
  return c;
}

Task copy_task(std::uint64_t seed) {
  auto data = std::make_shared<CopyTask>(10, 10);
  auto rng = std::make_shared<Rng>(seed);
  Task t{"copy", data->vocabulary(), data->vocabulary(), {}, {}, {}, 1000, 0.0};
  t.model = sized(toy_model("copy"), data->vocabulary(), data->vocabulary(), data->length(),
                  data->length() + 1);
  t.next_batch = [data, rng](std::size_t batch_size) { return data->batch(batch_size, *rng); };
  Rng held_out_rng(seed ^ 0x5EEDULL);
  for (int i = 0; i < 4; ++i) t.held_out.push_back(data->batch(t.model.batch_size, held_out_rng));
  return t;
}

Task translate_task() {
  auto data = std::make_shared<ToyTranslation>();
  Task t{"translate", data->source_vocabulary(), data->target_vocabulary(), {}, {}, {}, 100, 0.0};
  t.model = sized(toy_model("translate"), data->source_vocabulary(), data->target_vocabulary(),
                  data->src_len(), data->tgt_len());
  t.next_batch = [data](std::size_t /*batch_size*/) { return data->all(); };  // always both pairs
  t.held_out = {data->all()};  // two sentence pairs: there is nothing else to hold out
  return t;
}

// Held-out windows that do not overlap, evenly spread over the held-out text (at most `count`).
std::vector<std::size_t> held_out_windows(const VowelRestoration& data, std::size_t count) {
  const std::size_t available = data.num_windows(Split::kHeldOut);
  const std::size_t spacing = std::max(data.options().window, available / std::max<std::size_t>(count, 1));
  std::vector<std::size_t> indices;
  for (std::size_t i = 0; i < available && indices.size() < count; i += spacing) indices.push_back(i);
  return indices;
}

Task vowel_task(const std::shared_ptr<VowelRestoration>& data, std::uint64_t seed) {
  Task t{"vowels", data->vocabulary(), data->vocabulary(), {}, {}, {}, 0, 5.0};
  t.model = sized(preset("vowels-small"), data->vocabulary(), data->vocabulary(),
                  data->options().window, data->options().window);
  // The sampler deals out shuffled windows in batches of the size the first call asks for.
  auto sampler = std::make_shared<std::unique_ptr<BatchSampler>>();
  t.next_batch = [data, sampler, seed](std::size_t batch_size) {
    if (!*sampler)
      *sampler = std::make_unique<BatchSampler>(data->num_windows(Split::kTrain), batch_size,
                                                Order::kShuffled, seed);
    return data->batch(Split::kTrain, (*sampler)->next());
  };
  const std::vector<std::size_t> windows = held_out_windows(*data, 512);
  for (std::size_t i = 0; i < windows.size(); i += 128)
    t.held_out.push_back(data->batch(
        Split::kHeldOut, std::vector<std::size_t>(windows.begin() + i,
                                                  windows.begin() + std::min(windows.size(), i + 128))));
  return t;
}

// The text of one decoded row, cut at <eos>.
std::string decoded_text(const Vocabulary& vocabulary, const TokenIds& tokens, std::size_t row) {
  std::vector<std::int32_t> ids;
  for (std::size_t t = 0; t < tokens.shape(1); ++t) {
    const std::int32_t id = tokens(row, t);
    if (id == kEosId || id == kPadId) break;
    ids.push_back(id);
  }
  return vocabulary.decode(ids);
}

// [decode]
// Greedy (beam = 1) or beam search; for vowels every letter the input shows is kept (forced)
// and every `*` becomes a vowel, unless `keep_letters` is off (--free).
TokenIds decode(Transformer& model, const TokenIds& src, const Task& task, std::size_t beam,
                bool keep_letters) {
  BeamOptions options;
  if (task.name == "vowels") {
    options.max_steps = src.shape(1);
    options.stop_at_eos = false;  // the output has the input's length
    if (keep_letters) {
      options.forced = vowel_forcing(src, task.src_vocabulary, task.tgt_vocabulary);
      options.free_choices = vowel_ids(task.tgt_vocabulary);  // a `*` hides a vowel, nothing else
    }
  } else {
    options.max_steps = model.config().tgt_len;
  }
  if (beam <= 1) return greedy_decode(model, src, options).tokens;
  options.beam_size = beam;
  return beam_search(model, src, options).best_tokens();
}
// [decode]

TokenIds encode_row(const Vocabulary& vocabulary, const std::string& text) {
  const std::vector<std::int32_t> ids = vocabulary.encode(text, OnUnknown::kThrow);
  TokenIds row = TokenIds::from_shape({1, ids.size()});
  std::copy(ids.begin(), ids.end(), row.begin());
  return row;
}

// The source ids of one line of user input for --restore, with clear errors for what cannot
// work. main() calls it before training too, so that a typo does not cost a training run.
TokenIds restore_source(const Config& config, const Task& task, const std::string& text) {
  if (task.name != "vowels") throw UsageError("--restore needs --task vowels");
  if (text.empty()) throw UsageError("--restore: the text is empty");
  TokenIds src;
  try {
    src = encode_row(task.src_vocabulary, text);
  } catch (const VocabularyError& e) {  // names the character and its position
    throw UsageError(std::string("--restore: ") + e.what());
  }
  if (src.shape(1) > config.max_len)
    throw UsageError("--restore: the text has " + std::to_string(src.shape(1)) +
                     " characters but the model's positional table holds " +
                     std::to_string(config.max_len));
  return src;
}

// Restores the vowels of one line of user input.
std::string restore(Transformer& model, const Task& task, const std::string& text, std::size_t beam,
                    bool keep_letters) {
  const TokenIds src = restore_source(model.config(), task, text);
  return decoded_text(task.tgt_vocabulary, decode(model, src, task, beam, keep_letters), 0);
}

void print_history(const TrainingHistory& h) {
  std::printf("trained %zu steps in %.1f s: %.0f tokens/s; loss %.4f -> %.4f", h.steps.size(), h.seconds,
              h.tokens_per_second(), h.train_loss.front(), h.train_loss.back());
  if (!h.held_out_loss.empty()) std::printf("; held-out loss %.4f", h.held_out_loss.back());
  std::printf("\n");
}

void write_loss_curve(const TrainingHistory& h, const std::string& task_name) {
  ChartSeries train{"train", {}, {}, "#1f77b4"}, held_out{"held-out", {}, {}, "#d62728"};
  for (std::size_t i = 0; i < h.steps.size(); ++i) {
    train.x.push_back(static_cast<double>(h.steps[i]));
    train.y.push_back(h.train_loss[i]);
  }
  for (std::size_t i = 0; i < h.eval_steps.size(); ++i) {
    held_out.x.push_back(static_cast<double>(h.eval_steps[i]));
    held_out.y.push_back(h.held_out_loss[i]);
  }
  const std::string path = "loss_curve_" + task_name + ".svg";
  write_line_chart_svg(path, {train, held_out},
                       {"Cross-entropy while training (" + task_name + ")", "step", "loss", true});
  std::cout << "wrote " << path << "\n";
}

// [heat maps]
// One example's attention, as three pictures: encoder self-attention, decoder self-attention
// and cross-attention, for a chosen layer and head.
void write_attention_maps(Transformer& model, const Task& task, const TokenIds& src,
                          const TokenIds& output, std::size_t layer, std::size_t head) {
  const std::size_t len = output.shape(1);
  TokenIds tgt_in = TokenIds::from_shape({1, len});
  tgt_in(0, 0) = kBosId;
  for (std::size_t t = 1; t < len; ++t) tgt_in(0, t) = output(0, t - 1);
  EvaluationMode eval(model);
  model.forward(src, tgt_in);

  auto labels = [](const Vocabulary& v, const TokenIds& ids) {
    std::vector<std::string> out;
    for (std::size_t t = 0; t < ids.shape(1); ++t) out.push_back(v.symbol(ids(0, t)));
    return out;
  };
  const auto src_labels = labels(task.src_vocabulary, src), tgt_labels = labels(task.tgt_vocabulary, tgt_in);
  auto head_of = [head](const Tensor4& weights) -> Tensor2 { return xt::view(weights, 0, head); };
  const std::string where = " (layer " + std::to_string(layer) + ", head " + std::to_string(head) + ")";
  struct Picture { const char* file; std::string title; const Tensor4* weights; std::vector<std::string> rows, cols; };
  const Picture pictures[] = {
      {"attention_encoder_self.svg", "Encoder self-attention" + where,
       &model.encoder.layers[layer].self_attn.attention_weights(), src_labels, src_labels},
      {"attention_decoder_self.svg", "Decoder self-attention (causal)" + where,
       &model.decoder.layers[layer].self_attn.attention_weights(), tgt_labels, tgt_labels},
      {"attention_cross.svg", "Cross-attention: decoder queries, encoder keys" + where,
       &model.decoder.layers[layer].cross_attn.attention_weights(), tgt_labels, src_labels},
  };
  for (const Picture& p : pictures) {
    HeatmapOptions options;
    options.title = p.title;
    options.x_label = "key";
    options.y_label = "query";
    options.row_labels = p.rows;
    options.column_labels = p.cols;
    write_heatmap_svg(p.file, head_of(*p.weights), options);
    std::cout << "wrote " << p.file << "\n";
  }
}
// [heat maps]

void test_copy_or_translate(Transformer& model, const Task& task, std::size_t beam) {
  std::size_t exact = 0, total = 0;
  for (const Batch& batch : task.held_out) {
    const TokenIds out = decode(model, batch.src, task, beam, true);
    for (std::size_t b = 0; b < batch.size(); ++b, ++total) {
      const std::string got = decoded_text(task.tgt_vocabulary, out, b);
      const std::string want = decoded_text(task.tgt_vocabulary, batch.tgt_out, b);
      exact += got == want;
      if (b < 3 && &batch == &task.held_out.front())
        std::cout << "  " << decoded_text(task.src_vocabulary, batch.src, b) << "  ->  " << got
                  << (got == want ? "   (correct)" : "   (expected: " + want + ")") << "\n";
    }
  }
  std::printf("held-out sequences decoded exactly: %zu of %zu (%.1f%%)\n", exact, total, 100.0 * exact / total);
}

void test_vowels(Transformer& model, const Task& task, const VowelRestoration& data,
                 std::size_t eval_windows, std::size_t beam) {
  const std::string train_text = data.text().substr(0, data.boundary());
  const VowelBaseline baselines[] = {VowelBaseline::most_frequent(train_text),
                                     VowelBaseline::with_neighbours(train_text)};
  const std::vector<std::size_t> windows = held_out_windows(data, eval_windows);
  RestorationScore kept, free_choice, baseline_scores[2];
  for (std::size_t i = 0; i < windows.size(); i += 64) {
    const std::vector<std::size_t> chunk(windows.begin() + i, windows.begin() + std::min(windows.size(), i + 64));
    const Batch batch = data.batch(Split::kHeldOut, chunk);
    const TokenIds with_letters = decode(model, batch.src, task, beam, true);
    const TokenIds unconstrained = decode(model, batch.src, task, beam, false);
    for (std::size_t b = 0; b < chunk.size(); ++b) {
      const std::string truth = data.window(Split::kHeldOut, chunk[b]);
      const std::string masked = mask_vowels(truth);
      kept.add(masked, decoded_text(task.tgt_vocabulary, with_letters, b), truth);
      free_choice.add(masked, decoded_text(task.tgt_vocabulary, unconstrained, b), truth);
      for (int k = 0; k < 2; ++k) baseline_scores[k].add(masked, baselines[k].restore(masked), truth);
    }
  }
  // [results table]
  std::printf("\nHeld-out vowel restoration: %zu windows of %zu characters, %zu hidden vowels\n",
              windows.size(), data.options().window, kept.vowels);
  std::printf("  %-52s %10s %8s\n", "", "characters", "vowels");
  auto line = [](const std::string& name, const RestorationScore& s) {
    std::printf("  %-52s %10.4f %8.4f\n", name.c_str(), s.character_accuracy(), s.vowel_accuracy());
  };
  line("this model, letters of the input kept (default)", kept);
  line("this model, free decoding", free_choice);
  for (int k = 0; k < 2; ++k) line("baseline: " + baselines[k].name(), baseline_scores[k]);
  // [results table]

  std::printf("\nReference 002's test sentences (it printed the middle column):\n");
  for (const ReferenceExample& e : kReferenceExamples) {
    const std::string ours = restore(model, task, e.input, beam, true);
    std::printf("  %-32s  002: %-32s  ours: %-32s %s\n", e.input, e.reference_output, ours.c_str(),
                ours == e.expected ? "(correct)" : "");
  }
}

}  // namespace

int main(int argc, char** argv) {
  return run_program([&] {
    CommandLine cli("ch11_train_test",
                    "Chapter 11: train the Transformer on a task, then test it by decoding.");
    cli.option("--task", "NAME", "copy | translate | vowels", "vowels")
        .option("--preset", "NAME", "start from this preset instead of the task's model")
        .repeated("--set", "KEY=VALUE", "override one hyper-parameter (see ch01_params --help)")
        .option("--corpus", "FILE", "text for the vowels task", kDefaultCorpusPath)
        .option("--steps", "N", "train for N steps (default: the task's budget)")
        .option("--minutes", "M", "train for M minutes (default: the task's budget)")
        .option("--seed", "N", "seed of the weights and of the batches", "1")
        .option("--save", "DIR", "save a checkpoint after training")
        .option("--save-every", "N", "also save DIR-step<S> after every step S that is a multiple of N")
        .option("--load", "DIR", "start from a checkpoint (training resumes with its optimizer)")
        .repeated("--average", "DIR", "test the mean of the weights of these checkpoints (give it 2+ times)")
        .option("--beam", "K", "beam search with K beams (1: greedy)", "1")
        .option("--restore", "TEXT", "restore the vowels of TEXT, e.g. \"th* t*m* m*ch*n*\"")
        .option("--eval-windows", "N", "held-out windows to test vowels on", "500")
        .option("--eval-every", "N", "held-out loss every N steps", "100")
        .option("--layer", "L", "layer of the attention heat maps (default: the last)")
        .option("--head", "H", "head of the attention heat maps", "0")
        .flag("--free", "vowels: let the model rewrite the letters it was given too");
    if (!cli.parse(argc, argv)) return 0;
    if (cli.given("--save-every") && !cli.given("--save"))
      throw UsageError("--save-every needs --save DIR (the checkpoints are DIR-step<S>)");
    if (cli.given("--save-every") && cli.count("--save-every") == 0)
      throw UsageError("option '--save-every' needs N >= 1");

    const std::string task_name = cli.value("--task");
    const auto seed = static_cast<std::uint64_t>(cli.integer("--seed"));
    std::shared_ptr<VowelRestoration> vowel_data;
    if (task_name == "vowels")
      vowel_data = std::make_shared<VowelRestoration>(VowelRestoration::from_file(cli.value("--corpus")));
    else if (task_name != "copy" && task_name != "translate")
      throw UsageError("--task must be copy, translate or vowels, got '" + task_name + "'");
    const Task task = task_name == "copy"        ? copy_task(seed)
                      : task_name == "translate" ? translate_task()
                                                 : vowel_task(vowel_data, seed);

    // [build the model]
    Config config = task.model;
    const std::vector<std::string> averaged = cli.values("--average");
    if (!averaged.empty() && cli.given("--load"))
      throw UsageError("--load and --average both choose the weights; give one of them");
    if (!averaged.empty() && (cli.given("--steps") || cli.given("--minutes")))
      throw UsageError("--average makes a model to test, not to train on: Adam's state is not averaged");
    const std::string checkpoint_dir = cli.given("--load") ? cli.value("--load")
                                       : averaged.empty()   ? std::string()
                                                            : averaged.front();
    if (!checkpoint_dir.empty()) {
      const CheckpointHeader header = read_checkpoint_header(checkpoint_dir);
      require_same_vocabulary(header.src_vocabulary, task.src_vocabulary, "source");
      require_same_vocabulary(header.tgt_vocabulary, task.tgt_vocabulary, "target");
      config = header.config;
    } else if (cli.given("--preset")) {
      config = sized(preset(cli.value("--preset")), task.src_vocabulary, task.tgt_vocabulary,
                     task.model.src_len, task.model.tgt_len);
    }
    for (const std::string& assignment : cli.values("--set")) config.set(assignment);
    config.validate();
    if (cli.given("--restore")) restore_source(config, task, cli.value("--restore"));  // fail early
    Transformer model(config, seed);
    const ParameterList params = parameters_of(model);
    Adam optimizer(params, AdamOptions::paper());
    if (cli.given("--load")) {
      load_parameters(cli.value("--load"), params);
      if (has_optimizer_state(cli.value("--load")))
        load_optimizer_state(cli.value("--load"), params, optimizer);
      std::cout << "loaded " << cli.value("--load") << " (" << optimizer.steps_taken() << " steps trained)\n";
    }
    if (!averaged.empty()) {
      load_averaged_parameters(averaged, params);
      std::cout << "loaded the mean of " << averaged.size() << " checkpoints' weights\n";
    }
    // [build the model]
    std::printf("task %s, model '%s': d_model %zu, %zu heads, %zu + %zu layers, d_ff %zu, %zu parameters\n",
                task.name.c_str(), config.preset.c_str(), config.d_model, config.n_heads,
                config.n_encoder_layers, config.n_decoder_layers, config.d_ff, params.count());

    // [train]
    // The budget: --steps and/or --minutes; else the task's default, except after --load,
    // where only an explicit budget trains on (so that --load DIR --restore TEXT just restores).
    TrainingOptions training;
    const bool use_default =
        !cli.given("--steps") && !cli.given("--minutes") && !cli.given("--load") && averaged.empty();
    training.max_steps = cli.given("--steps") ? cli.count("--steps")
                         : use_default        ? task.default_steps
                                              : 0;
    if (cli.given("--minutes") && !(cli.number("--minutes") >= 0))
      throw UsageError("option '--minutes' needs a number >= 0, got " + cli.value("--minutes"));
    training.max_seconds = 60.0 * (cli.given("--minutes") ? cli.number("--minutes")
                                   : use_default          ? task.default_minutes
                                                          : 0.0);
    training.eval_every = cli.count("--eval-every");
    if (cli.given("--save-every")) {
      training.checkpoint_every = cli.count("--save-every");
      training.checkpoint = [&](std::size_t step) {
        const std::string dir = cli.value("--save") + "-step" + std::to_string(step);
        try {
          save_checkpoint(dir, {config, task.src_vocabulary, task.tgt_vocabulary}, params, &optimizer);
        } catch (const CheckpointError& e) {  // one lost snapshot must not cost the whole run
          return std::string("warning: ") + e.what() + "; training goes on";
        }
        return "saved " + dir;
      };
    }
    training.clip_norm = config.clip_norm;
    training.label_smoothing = config.label_smoothing;
    training.schedule = config.warmup_steps > 0
                            ? LearningRateSchedule::noam(config.d_model, config.warmup_steps,
                                                         config.learning_rate *
                                                             std::sqrt(float(config.d_model * config.warmup_steps)))
                            : LearningRateSchedule::constant(config.learning_rate);
    if (training.max_steps > 0 || training.max_seconds > 0) {
      std::cout << "learning rate: " << training.schedule.describe() << "\n";
      std::cout << "\nThe first training step, traced:\n";
      TrainingHistory history;
      {
        trace::Enable trace;
        // The batch size is the model's: the task's default, or as --preset / --set chose.
        const auto next_batch = [&task, &config] { return task.next_batch(config.batch_size); };
        history = train(model, optimizer, next_batch, task.held_out, training, std::cout,
                        ProgressBar::stdout_is_terminal());
      }
      print_history(history);
      write_loss_curve(history, task.name);
    }
    // [train]
    if (cli.given("--save")) {
      // An average has no optimizer state of its own: it is saved as weights only.
      save_checkpoint(cli.value("--save"), {config, task.src_vocabulary, task.tgt_vocabulary}, params,
                      averaged.empty() ? &optimizer : nullptr);
      std::cout << "saved " << cli.value("--save") << "\n";
    }

    // [test]
    const std::size_t beam = cli.count("--beam");
    if (beam == 0) throw UsageError("option '--beam' needs K >= 1 (1: greedy decoding)");
    const bool keep_letters = !cli.flag_set("--free");
    if (cli.given("--restore")) {
      std::cout << cli.value("--restore") << "  ->  "
                << restore(model, task, cli.value("--restore"), beam, keep_letters) << "\n";
      return 0;
    }
    std::cout << "\nTesting (" << (beam <= 1 ? std::string("greedy decoding") : "beam search, K = " + std::to_string(beam))
              << ", key/value cache):\n";
    if (task.name == "vowels")
      test_vowels(model, task, *vowel_data, cli.count("--eval-windows"), beam);
    else
      test_copy_or_translate(model, task, beam);
    // [test]

    const std::size_t layer = cli.given("--layer") ? cli.count("--layer")
                                                   : config.n_decoder_layers - 1;
    const std::size_t head = cli.count("--head");
    if (layer >= std::min(config.n_encoder_layers, config.n_decoder_layers) || head >= config.n_heads)
      throw UsageError("--layer/--head out of range: the model has " + std::to_string(config.n_encoder_layers) +
                       " + " + std::to_string(config.n_decoder_layers) + " layers and " +
                       std::to_string(config.n_heads) + " heads");
    const Batch example = task.held_out.front();
    TokenIds src = xt::view(example.src, xt::range(0, 1), xt::all());
    if (task.name == "vowels") src = encode_row(task.src_vocabulary, kReferenceExamples[0].input);
    write_attention_maps(model, task, src, decode(model, src, task, 1, keep_letters), layer, head);
    return 0;
  });
}
