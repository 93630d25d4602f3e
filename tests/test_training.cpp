// The training loop (chapter 11): tiny models really learn the copy, translation and vowel
// tasks in a fixed number of steps; a seed fixes every loss bit for bit; a NaN or Inf stops
// training with a message saying where; the budget and the held-out evaluations are exact.
//
// Every step count below was chosen by measurement over several seeds (Release build, one
// OpenBLAS thread), then given a margin, as each comment says. The runs are deterministic for a
// given seed, so the margins guard against changes in float rounding (a different BLAS kernel,
// a reordered sum), not against chance.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "tfm/decode/decoding.hpp"
#include "tfm/engine/bf16_products.hpp"
#include "tfm/engine/precision.hpp"
#include "tfm/support/stop_request.hpp"
#include "tfm/tasks/copy_sequences.hpp"
#include "tfm/tasks/toy_translation.hpp"
#include "tfm/tasks/vowel_metrics.hpp"
#include "tfm/tasks/vowel_restoration.hpp"
#include "tfm/train/trainer.hpp"

using namespace tfm;

namespace {

// The `tiny` preset (d_model 16, 2 heads, 2 + 2 layers, d_ff 32) sized for a task.
Config tiny_model(std::size_t src_vocab, std::size_t tgt_vocab, std::size_t src_len,
                  std::size_t tgt_len, float dropout) {
  Config c = preset("tiny");
  c.src_vocab_size = src_vocab;
  c.tgt_vocab_size = tgt_vocab;
  c.src_len = src_len;
  c.tgt_len = tgt_len;
  c.max_len = 64;
  c.dropout = dropout;
  return c;
}

// A constant learning rate, no trace, and the given step budget.
TrainingOptions steps_at(std::size_t steps, float rate) {
  TrainingOptions options;
  options.max_steps = steps;
  options.schedule = LearningRateSchedule::constant(rate);
  options.trace_first_step = false;
  return options;
}

// The text of row b of decoded (or target) ids, cut at <eos>.
std::string row_text(const Vocabulary& vocabulary, const TokenIds& ids, std::size_t b) {
  std::vector<std::int32_t> kept;
  for (std::size_t t = 0; t < ids.shape(1) && ids(b, t) != kEosId && ids(b, t) != kPadId; ++t)
    kept.push_back(ids(b, t));
  return vocabulary.decode(kept);
}

// The copy task's losses over `steps` steps of a tiny model with dropout 0.1, everything
// (weights, dropout masks, batches) drawn from `seed`.
std::vector<double> copy_losses(std::uint64_t seed, std::size_t steps, float dropout = 0.1f) {
  const CopySequences data(10, 10);
  const Vocabulary& v = data.vocabulary();
  Transformer model(tiny_model(v.size(), v.size(), 10, 11, dropout), seed);
  Adam optimizer(parameters_of(model));
  Rng batches(seed);
  std::ostringstream progress;
  return train(
             model, optimizer, [&](std::size_t) { return data.batch(8, batches); }, {},
             steps_at(steps, 1e-3f), progress, false)
      .train_loss;
}

// A tiny copy-task setup for the tests of the loop's mechanics.
struct SmallRun {
  CopySequences data{6, 5};
  Transformer model{tiny_model(data.vocabulary().size(), data.vocabulary().size(), 5, 6, 0.1f), 3};
  Adam optimizer{parameters_of(model)};
  Rng batches{3};
  std::vector<Batch> held_out;
  std::ostringstream progress;

  SmallRun() {
    Rng held_out_rng(99);
    held_out = {data.batch(8, held_out_rng), data.batch(8, held_out_rng)};
  }
  TrainingHistory run(const TrainingOptions& options) {
    return train(
        model, optimizer, [this](std::size_t) { return data.batch(8, batches); }, held_out, options,
        progress, false);
  }
};

// The first parameter (registration order) with a NaN or Inf in its gradient, or "".
std::string first_bad_gradient(const ParameterList& params) {
  for (const ParameterRef& p : params)
    for (std::size_t i = 0; i < p.size; ++i)
      if (!std::isfinite(p.grad[i])) return p.name;
  return "";
}

// How many of 32 held-out sequences a model copies exactly after the copy task's schedule:
// 400 steps at a constant 3e-3, then 200 at 3e-4, batches of `batch_size` sequences of 10.
std::size_t copied_exactly(Config config, std::size_t batch_size) {
  const CopySequences data(10, 10);
  const Vocabulary& v = data.vocabulary();
  config.src_vocab_size = config.tgt_vocab_size = v.size();
  config.src_len = data.length();
  config.tgt_len = data.length() + 1;
  config.scaled_embedding_init = true;
  Transformer model(config, 1);
  Adam optimizer(parameters_of(model), AdamOptions::paper());
  Rng batches(8);
  auto next_batch = [&](std::size_t) { return data.batch(batch_size, batches); };
  std::ostringstream progress;
  train(model, optimizer, next_batch, {}, steps_at(400, 3e-3f), progress, false);
  train(model, optimizer, next_batch, {}, steps_at(200, 3e-4f), progress, false);

  Rng held_out_rng(999);  // a stream the training batches never came from
  const Batch test = data.batch(32, held_out_rng);
  DecodeOptions options;
  options.max_steps = data.length() + 1;  // the symbols and <eos>
  const TokenIds out = greedy_decode(model, test.src, options).tokens;
  std::size_t exact = 0;
  for (std::size_t b = 0; b < test.size(); ++b) {
    UNSCOPED_INFO("source " << v.decode(row(test.src, b)) << " -> " << row_text(v, out, b));
    exact += row_text(v, out, b) == row_text(v, test.tgt_out, b);
  }
  return exact;
}

}  // namespace

TEST_CASE("training: the copy task is learned: every held-out sequence copied exactly",
          "[training]") {
  // Measured with seeds 1-8 (checking every 50 steps): at a constant 3e-3 most sequences are
  // right by step 300 (27-32 of 32), but the constant rate keeps knocking a few out again.
  // Dropping the rate to 3e-4 settles it: dropped at step 300, all 32 were right from step 500
  // on in every seed; dropped at step 400, from step 450 on. So: 400 steps at 3e-3 (4/3 of
  // the 300 that sufficed), then 200 at 3e-4 (4x the 50 that annealing needed).
  // Embeddings start at N(0, 1/d_model) (scaled_embedding_init): with nn.Embedding's N(0, 1)
  // the same model had copied at most 18 of 32 after 600 steps.
  CHECK(copied_exactly(tiny_model(1, 1, 1, 1, 0.0f), 32) == 32);
}

TEST_CASE("training: the copy task is learned with the products in bf16", "[training][bf16]") {
  if (!cpu_has_bf16()) {
    WARN("skipped: " << bf16_unavailable_reason());
    return;
  }
  // A model wide enough, and batches big enough, that the layers' products run in bf16
  // (bf16_pays: 32 x 11 positions times 64 x 64 weights); attention's per-head products stay
  // fp32 at this length.
  Config config = tiny_model(1, 1, 1, 1, 0.0f);
  config.d_model = 64;
  config.d_ff = 128;
  config.n_heads = 4;
  REQUIRE(bf16_pays(32 * 11, 64, 64));
  const PrecisionScope bf16(Precision::kBf16);
  CHECK(copied_exactly(config, 32) == 32);
}

TEST_CASE("training: the toy translation is learned: ich mochte ein bier -> i want a beer .",
          "[training]") {
  // Measured with seeds 1-8: both sentences are right from step 10-25 on (and stay right);
  // 60 steps is 2.4x the slowest seed.
  const ToyTranslation data;
  const Config config = tiny_model(data.source_vocabulary().size(), data.target_vocabulary().size(),
                                   data.src_len(), data.tgt_len(), 0.0f);
  Transformer model(config, 1);
  Adam optimizer(parameters_of(model), AdamOptions::paper());
  const Batch all = data.all();
  std::ostringstream progress;
  train(
      model, optimizer, [&](std::size_t) { return all; }, {}, steps_at(60, 3e-3f), progress, false);

  // Translate from the words, not from the training batch, as a user would.
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"ich mochte ein bier", "i want a beer ."}, {"ich mochte ein cola", "i want a coke ."}};
  for (const auto& [german, english] : expected) {
    const std::vector<std::int32_t> ids =
        data.source_vocabulary().encode(german, OnUnknown::kThrow);
    TokenIds src = TokenIds::from_shape({1, data.src_len()});
    src.fill(kPadId);
    std::copy(ids.begin(), ids.end(), src.begin());
    DecodeOptions options;
    options.max_steps = data.tgt_len();
    const TokenIds out = greedy_decode(model, src, options).tokens;
    CHECK(row_text(data.target_vocabulary(), out, 0) == english);
  }
}

TEST_CASE("training: a short vowels run beats the most-frequent-vowel baseline on held-out text",
          "[training]") {
  // A few KB of English: one paragraph, repeated on one line. The held-out part (the last 10 %) is
  // thus text of the same kind the model trained on, so this shows that the whole path — file,
  // windows, training, forced greedy decoding, scoring — learns, not that a tiny model
  // generalises to new text (that needs a real corpus and minutes; see the chapter).
  const std::string paragraph =
      "The old man walked down to the harbour every morning before the sun was up. He liked to "
      "watch the boats go out and to listen to the gulls above the water. When the wind was cold "
      "he wore the grey coat his daughter had made for him, and when it was warm he sat on the "
      "stone wall and read the paper. The fishermen knew him and waved as they passed, and some "
      "of them stopped to talk about the weather, the price of fish and the news from the town. ";
  const std::filesystem::path corpus =
      std::filesystem::temp_directory_path() /
      ("tfm_test_training_corpus_" + std::to_string(::getpid()) + ".txt");
  {
    std::ofstream file(corpus);
    for (int i = 0; i < 10; ++i) file << paragraph;
    file << '\n';
  }
  VowelOptions window;
  window.window = 20;
  const VowelRestoration data = VowelRestoration::from_file(corpus.string(), window);
  std::filesystem::remove(corpus);
  REQUIRE(data.raw_bytes() > 4000);

  Config config = tiny_model(data.vocabulary().size(), data.vocabulary().size(), window.window,
                             window.window, 0.0f);
  config.scaled_embedding_init = true;
  Transformer model(config, 1);
  Adam optimizer(parameters_of(model), AdamOptions::paper());
  BatchSampler sampler(data.num_windows(Split::kTrain), 32, Order::kShuffled, 1);
  std::ostringstream progress;
  // Measured with seeds 1-4: held-out vowel accuracy 0.41-0.49 after 100 steps, 0.59-0.68
  // after 200 and 0.74-0.81 after 300, against 0.39 for the baseline. 300 steps, and the test
  // asks for a clear win (+0.15), well below the 0.35 measured.
  train(
      model, optimizer, [&](std::size_t) { return data.batch(Split::kTrain, sampler.next()); }, {},
      steps_at(300, 3e-3f), progress, false);

  // Held-out windows every 10 characters; the baseline is fitted on the training part only.
  std::vector<std::size_t> windows;
  for (std::size_t i = 0; i < data.num_windows(Split::kHeldOut); i += 10) windows.push_back(i);
  const Batch held_out = data.batch(Split::kHeldOut, windows);
  DecodeOptions options;
  options.max_steps = window.window;
  options.stop_at_eos = false;  // the output has the input's length
  options.forced = vowel_forcing(held_out.src, data.vocabulary(), data.vocabulary());
  const TokenIds out = greedy_decode(model, held_out.src, options).tokens;

  const VowelBaseline baseline =
      VowelBaseline::most_frequent(data.text().substr(0, data.boundary()));
  RestorationScore ours, theirs;
  for (std::size_t b = 0; b < windows.size(); ++b) {
    const std::string truth = data.window(Split::kHeldOut, windows[b]);
    const std::string masked = mask_vowels(truth);
    ours.add(masked, row_text(data.vocabulary(), out, b), truth);
    theirs.add(masked, baseline.restore(masked), truth);
  }
  INFO("model " << ours.vowel_accuracy() << ", " << baseline.name() << " "
                << theirs.vowel_accuracy() << " over " << ours.vowels << " hidden vowels");
  REQUIRE(ours.vowels >= 100);
  CHECK(ours.character_accuracy() > theirs.character_accuracy());
  CHECK(ours.vowel_accuracy() > theirs.vowel_accuracy() + 0.15);
}

TEST_CASE("training: the same seed gives the same losses bit for bit, with dropout on",
          "[training]") {
  const std::vector<double> first = copy_losses(7, 5), again = copy_losses(7, 5);
  REQUIRE(first.size() == 5);
  CHECK(first == again);  // exact equality of doubles: nothing may depend on time or addresses

  const std::vector<double> other_seed = copy_losses(8, 5);
  for (std::size_t i = 0; i < first.size(); ++i) CHECK(other_seed[i] != first[i]);

  // Dropout really is on (its masks come from the seed too): without it the losses differ.
  const std::vector<double> no_dropout = copy_losses(7, 5, 0.0f);
  CHECK(no_dropout != first);
}

TEST_CASE("training: a non-finite loss stops training and names the step", "[training]") {
  SmallRun run;
  run.run(steps_at(3, 1e-3f));
  REQUIRE(run.optimizer.steps_taken() == 3);

  // A NaN in the output projection makes every logit of one vocabulary entry NaN.
  run.model.generator.weight.value(0, 0) = std::numeric_limits<float>::quiet_NaN();
  try {
    run.run(steps_at(5, 1e-3f));
    FAIL("training went on with a NaN loss");
  } catch (const TrainingError& e) {
    const std::string message = e.what();
    INFO(message);
    CHECK(message.find("step 4: the loss is nan") != std::string::npos);
    CHECK(message.find("learning rate") != std::string::npos);
  }
  CHECK(run.optimizer.steps_taken() == 3);  // the bad step updated nothing

  run.model.generator.weight.value(0, 0) = std::numeric_limits<float>::infinity();
  CHECK_THROWS_AS(run.run(steps_at(5, 1e-3f)), TrainingError);
  CHECK(run.optimizer.steps_taken() == 3);
}

TEST_CASE("training: a non-finite gradient stops training and names the step and the parameter",
          "[training]") {
  SmallRun run;
  run.run(steps_at(2, 1e-3f));
  const ParameterList params = parameters_of(run.model);
  std::vector<std::vector<float>> before;
  for (const ParameterRef& p : params) before.emplace_back(p.value, p.value + p.size);

  // A NaN in one weight of hidden unit 0 of the last decoder layer's feed-forward network: the
  // unit's pre-activation is NaN, ReLU turns it into 0 (NaN > 0 is false), so the forward pass
  // and the loss stay finite. Backward, d(input) = d(pre-activation) · W1 multiplies that NaN
  // by 0, which is NaN: every gradient below the layer is poisoned, the loss is not.
  Tensor2& w1 = run.model.decoder.layers.back().ffn.linear1.weight.value;
  const float saved = w1(0, 0);
  w1(0, 0) = std::numeric_limits<float>::quiet_NaN();
  {
    // The premise: with the NaN in place the loss is still finite (were ReLU to let NaN
    // through, the loss guard would fire first and this test would test nothing new).
    CrossEntropy loss_fn(kPadId);
    const Batch probe = run.held_out[0];
    INFO("ReLU must map NaN to 0 for this test");
    REQUIRE(
        std::isfinite(loss_fn.forward(run.model.forward(probe.src, probe.tgt_in), probe.tgt_out)));
  }
  try {
    run.run(steps_at(5, 1e-3f));
    FAIL("training went on with a NaN gradient");
  } catch (const TrainingError& e) {
    const std::string message = e.what();
    const std::string bad = first_bad_gradient(params);
    INFO(message);
    REQUIRE_FALSE(bad.empty());
    CHECK(message.find("step 3: the gradient of '" + bad + "' is not finite") != std::string::npos);
    CHECK(message.find("(loss ") != std::string::npos);
    CHECK(message.find("nan") == std::string::npos);  // the loss itself was finite
  }
  // The guard comes before clipping and the optimizer: no parameter moved.
  w1(0, 0) = saved;
  CHECK(run.optimizer.steps_taken() == 2);
  for (std::size_t k = 0; k < params.size(); ++k) {
    const ParameterRef& p = params.refs()[k];
    INFO(p.name);
    CHECK(std::equal(p.value, p.value + p.size, before[k].begin()));
  }
}

TEST_CASE(
    "training: the step budget is respected exactly and a run resumes from the optimizer's count",
    "[training]") {
  SmallRun run;
  const TrainingHistory first = run.run(steps_at(7, 1e-3f));
  CHECK(first.steps == std::vector<std::size_t>{1, 2, 3, 4, 5, 6, 7});
  CHECK(first.train_loss.size() == 7);
  CHECK(run.optimizer.steps_taken() == 7);
  CHECK(first.tokens == 7 * 8 * 6);  // steps x batch x (5 symbols + <eos>), no padding
  CHECK(first.seconds > 0.0);
  CHECK(first.tokens_per_second() > 0.0);

  const TrainingHistory resumed = run.run(steps_at(3, 1e-3f));
  CHECK(resumed.steps == std::vector<std::size_t>{8, 9, 10});
  CHECK(run.optimizer.steps_taken() == 10);

  // A time budget alone; with both, whichever ends first.
  TrainingOptions timed = steps_at(0, 1e-3f);
  timed.max_seconds = 0.2;
  const TrainingHistory by_time = run.run(timed);
  CHECK(by_time.steps.size() >= 1);
  CHECK(by_time.seconds >= 0.2);
  TrainingOptions both = steps_at(4, 1e-3f);
  both.max_seconds = 1000.0;
  CHECK(run.run(both).steps.size() == 4);
}

TEST_CASE("training: training without a budget is an error", "[training]") {
  SmallRun run;
  TrainingOptions none = steps_at(0, 1e-3f);
  CHECK_THROWS_AS(run.run(none), TrainingError);
  CHECK_THROWS_WITH(run.run(none), Catch::Contains("budget"));
  none.max_seconds = -1.0;
  CHECK_THROWS_AS(run.run(none), TrainingError);
  CHECK(run.optimizer.steps_taken() == 0);
}

TEST_CASE("training: the held-out loss is recorded at the eval interval and at the end",
          "[training]") {
  SmallRun run;
  TrainingOptions options = steps_at(7, 1e-3f);
  options.eval_every = 3;
  const TrainingHistory h = run.run(options);
  CHECK(h.eval_steps == std::vector<std::size_t>{3, 6, 7});
  REQUIRE(h.held_out_loss.size() == 3);
  // The last one is the model's held-out loss after training (evaluation has no dropout, so it
  // is reproducible), and the loop leaves the model in evaluation mode.
  CHECK_FALSE(run.model.training());
  CHECK(h.held_out_loss.back() == mean_loss(run.model, run.held_out));
  for (double loss : h.held_out_loss) CHECK(std::isfinite(loss));
  // Plain progress lines (not a terminal): the evaluations and the final state.
  const std::string log = run.progress.str();
  CHECK(log.find("step 3: held-out loss") != std::string::npos);
  CHECK(log.find("step 6: held-out loss") != std::string::npos);
  CHECK(log.find("step 7/7") != std::string::npos);
  CHECK(log.find('\r') == std::string::npos);

  // Resumed (the same optimizer, after step 7): the evaluations fall on the model's steps that
  // are multiples of the interval, as in one straight run, and the end is added.
  options.max_steps = 6;
  CHECK(run.run(options).eval_steps == std::vector<std::size_t>{9, 12, 13});
  CHECK(run.progress.str().find("step 13/13") != std::string::npos);
  // A run that ends on a multiple evaluates there once, not twice.
  options.max_steps = 5;
  CHECK(run.run(options).eval_steps == std::vector<std::size_t>{15, 18});
  // Interval 0: only at the end. No held-out batches: never.
  options.eval_every = 0;
  CHECK(run.run(options).eval_steps == std::vector<std::size_t>{23});
  run.held_out.clear();
  options.eval_every = 2;
  const TrainingHistory without = run.run(options);
  CHECK(without.eval_steps.empty());
  CHECK(without.held_out_loss.empty());
}

TEST_CASE(
    "training: the checkpoint callback runs at every multiple of its interval, resumed runs "
    "included",
    "[training]") {
  SmallRun run;
  std::vector<std::size_t> saved_at;
  TrainingOptions options = steps_at(7, 1e-3f);
  options.checkpoint_every = 3;
  options.checkpoint = [&](std::size_t step, const TrainingHistory& so_far) {
    saved_at.push_back(step);
    CHECK(run.optimizer.steps_taken() == step);  // called after the step's update
    CHECK(so_far.steps.back() == step);          // with the losses up to this step
    return "saved step " + std::to_string(step);
  };
  run.run(options);
  CHECK(saved_at == std::vector<std::size_t>{3, 6});
  CHECK(run.progress.str().find("saved step 6") != std::string::npos);
  // The steps are the optimizer's: a resumed run keeps the rhythm (9, not 3 + 7 = 10).
  options.max_steps = 4;
  run.run(options);
  CHECK(saved_at == std::vector<std::size_t>{3, 6, 9});
  // Interval 0: never called.
  options.checkpoint_every = 0;
  run.run(options);
  CHECK(saved_at.size() == 3);
}

TEST_CASE("training: mean_loss weights batches by their counted tokens", "[training]") {
  SmallRun run;
  // The mean over two batches is the mean over their tokens: with equal token counts, the
  // plain average of the two batch losses.
  const double both = mean_loss(run.model, run.held_out);
  const double one = mean_loss(run.model, {run.held_out[0]});
  const double two = mean_loss(run.model, {run.held_out[1]});
  CHECK(both == Approx((one + two) / 2).epsilon(1e-6));
  CHECK(mean_loss(run.model, {}) == 0.0);
}

TEST_CASE("training: Ctrl-C ends training after the step it interrupts", "[training][stop]") {
  SmallRun run;
  const StopOnSignal stop_on_signal;
  std::size_t batches = 0;
  const auto batch = [&](std::size_t) {
    if (++batches == 3) std::raise(SIGINT);  // during step 3: as if the user pressed Ctrl-C
    return run.data.batch(8, run.batches);
  };
  const TrainingHistory h = train(run.model, run.optimizer, batch, run.held_out,
                                  steps_at(10, 1e-3f), run.progress, false);
  CHECK(h.stopped);
  CHECK(h.steps == std::vector<std::size_t>{1, 2, 3});  // step 3 was finished, not thrown away
  CHECK(run.optimizer.steps_taken() == 3);
  CHECK(h.eval_steps == std::vector<std::size_t>{3});  // the end-of-training evaluation still runs
  CHECK(stop_requested());
}

TEST_CASE("training: a stop request lasts only as long as its StopOnSignal", "[training][stop]") {
  {
    const StopOnSignal stop_on_signal;
    CHECK_FALSE(stop_requested());
    std::raise(SIGTERM);
    CHECK(stop_requested());
  }
  CHECK_FALSE(stop_requested());  // the handlers are back; nothing is pending
  const StopOnSignal again;
  CHECK_FALSE(stop_requested());  // a new one starts clear
  SmallRun run;
  CHECK_FALSE(run.run(steps_at(2, 1e-3f)).stopped);
}
