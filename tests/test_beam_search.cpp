// Beam search: K = 1 is greedy decoding, hypotheses are ranked by GNMT's normalised score and
// each score is the log-probability an uncached forward pass gives, a beam wide enough to keep
// every prefix finds the most probable sequences, forced tokens and <eos> are honoured.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <set>
#include <vector>

#include "decoding_helpers.hpp"
#include "tfm/decode/beam_search.hpp"

using namespace tfm;
using testing::random_forcing;
using testing::random_source;
using testing::same_ids;

namespace {

// log P(tokens | source row b), recomputed without any cache: one forward pass of the whole
// model on <bos> + tokens[:-1], summing log-softmax at each target (in double).
double sequence_log_prob(Transformer& model, const TokenIds& src, std::size_t b,
                         const std::vector<std::int32_t>& tokens) {
  const std::size_t S = src.shape(1), T = tokens.size();
  TokenIds one_src = TokenIds::from_shape({1, S}), tgt_in = TokenIds::from_shape({1, T});
  for (std::size_t j = 0; j < S; ++j) one_src(0, j) = src(b, j);
  tgt_in(0, 0) = kBosId;
  for (std::size_t t = 1; t < T; ++t) tgt_in(0, t) = tokens[t - 1];
  const Tensor3 logits = model.forward(one_src, tgt_in);
  const std::size_t V = logits.shape(2);
  double total = 0.0;
  for (std::size_t t = 0; t < T; ++t) {
    const float* row = logits.data() + t * V;
    const double max = *std::max_element(row, row + V);
    double sum = 0.0;
    for (std::size_t v = 0; v < V; ++v) sum += std::exp(row[v] - max);
    total += row[tokens[t]] - max - std::log(sum);
  }
  return total;
}

}  // namespace

TEST_CASE("length_penalty is GNMT's ((5 + length) / 6)^alpha", "[beam]") {
  CHECK(length_penalty(1, 0.6f) == Approx(1.0));
  CHECK(length_penalty(7, 0.0f) == Approx(1.0));
  CHECK(length_penalty(7, 1.0f) == Approx(2.0));
  CHECK(length_penalty(13, 0.5f) == Approx(std::sqrt(3.0)));
}

TEST_CASE("beam search with K = 1 is greedy decoding", "[beam]") {
  const Config config = testing::small_decoding_config();
  bool some_row_ended = false, some_row_ran_out = false;
  for (std::uint64_t seed : {1, 2, 3}) {
    for (std::size_t batch : {1, 4}) {
      for (float eos_bias : {0.0f, 1.5f, 3.0f}) {
        for (bool forcing : {false, true}) {
          INFO("seed " << seed << ", batch " << batch << ", eos bias " << eos_bias << ", forcing "
                       << forcing);
          Transformer model(config, seed);
          model.generator.bias.value(kEosId) += eos_bias;  // rows finish at different steps
          Rng rng(seed + 10 * batch);
          const TokenIds src = random_source(batch, 6, config.src_vocab_size, rng);
          BeamOptions options;
          options.beam_size = 1;
          options.max_steps = 9;
          if (forcing) {
            options.forced = random_forcing(batch, 9, config.tgt_vocab_size, rng);
            options.free_choices = {kEosId, 5, 6, 8, 11};
          }
          const DecodeResult greedy = greedy_decode(model, src, options);
          const BeamResult beam = beam_search(model, src, options);
          REQUIRE(beam.hypotheses.size() == batch);
          CHECK(same_ids(beam.best_tokens(), greedy.tokens));
          for (const auto& per_source : beam.hypotheses) {
            REQUIRE(per_source.size() == 1);
            (per_source[0].finished ? some_row_ended : some_row_ran_out) = true;
          }
        }
      }
    }
  }
  CHECK(some_row_ended);  // both endings were exercised
  CHECK(some_row_ran_out);
}

TEST_CASE(
    "beam search with K > 1: hypotheses ranked by normalised score, scores recomputed "
    "without the cache",
    "[beam]") {
  const Config config = testing::small_decoding_config();
  Transformer model(config, 21);  // ends some hypotheses with <eos>, not all (checked below)
  Rng rng(21);
  const TokenIds src = random_source(3, 7, config.src_vocab_size, rng);
  BeamOptions options;
  options.beam_size = 4;
  options.max_steps = 8;
  options.length_penalty = 0.6f;
  const BeamResult result = beam_search(model, src, options);
  REQUIRE(result.hypotheses.size() == 3);

  model.set_training(false);  // the recomputation must see the same (dropout-free) model
  std::size_t finished = 0, unfinished = 0;
  for (std::size_t b = 0; b < 3; ++b) {
    const std::vector<Hypothesis>& hypotheses = result.hypotheses[b];
    CHECK(hypotheses.size() == 4);
    std::set<std::vector<std::int32_t>> distinct;
    for (std::size_t i = 0; i < hypotheses.size(); ++i) {
      const Hypothesis& h = hypotheses[i];
      INFO("source " << b << ", hypothesis " << i);
      REQUIRE(!h.tokens.empty());
      distinct.insert(h.tokens);
      if (i > 0) CHECK(hypotheses[i - 1].score >= h.score);
      // <eos> ends a finished hypothesis and appears nowhere else; the others ran out of steps.
      CHECK(h.finished == (h.tokens.back() == kEosId));
      CHECK(std::count(h.tokens.begin(), h.tokens.end() - 1, kEosId) == 0);
      if (!h.finished) CHECK(h.tokens.size() == options.max_steps);
      (h.finished ? finished : unfinished) += 1;
      CHECK(h.log_prob == Approx(sequence_log_prob(model, src, b, h.tokens)).margin(1e-4));
      CHECK(h.score == Approx(h.log_prob / std::pow((5.0 + h.tokens.size()) / 6.0, 0.6)));
    }
    CHECK(distinct.size() == hypotheses.size());
  }
  CHECK(finished > 0);
  CHECK(unfinished > 0);

  SECTION("the uncached beam search finds the same hypotheses") {
    options.cached = false;
    const BeamResult uncached = beam_search(model, src, options);
    for (std::size_t b = 0; b < 3; ++b) {
      REQUIRE(uncached.hypotheses[b].size() == result.hypotheses[b].size());
      for (std::size_t i = 0; i < result.hypotheses[b].size(); ++i) {
        CHECK(uncached.hypotheses[b][i].tokens == result.hypotheses[b][i].tokens);
        CHECK(uncached.hypotheses[b][i].log_prob ==
              Approx(result.hypotheses[b][i].log_prob).margin(1e-5));
      }
    }
  }
}

TEST_CASE("beam search wide enough to keep every prefix finds the most probable sequences",
          "[beam]") {
  // With V = 5 target ids and 3 steps there are 125 sequences; K = 25 keeps every 2-token
  // prefix, so the search is exhaustive and its 25 hypotheses must be the 25 best sequences.
  Config config = testing::small_decoding_config();
  config.tgt_vocab_size = 5;
  Transformer model(config, 31);
  Rng rng(31);
  const TokenIds src = random_source(1, 5, config.src_vocab_size, rng);
  BeamOptions options;
  options.beam_size = 25;
  options.max_steps = 3;
  options.stop_at_eos = false;    // every sequence has 3 tokens
  options.length_penalty = 0.0f;  // score = log-probability
  const BeamResult result = beam_search(model, src, options);

  model.set_training(false);
  std::vector<std::pair<double, std::vector<std::int32_t>>> all;
  for (std::int32_t a = 0; a < 5; ++a)
    for (std::int32_t b = 0; b < 5; ++b)
      for (std::int32_t c = 0; c < 5; ++c)
        all.push_back({sequence_log_prob(model, src, 0, {a, b, c}), {a, b, c}});
  std::sort(all.begin(), all.end(), [](const auto& x, const auto& y) { return x.first > y.first; });

  const std::vector<Hypothesis>& found = result.hypotheses.at(0);
  REQUIRE(found.size() == 25);
  for (std::size_t i = 0; i < 25; ++i) {
    INFO("rank " << i);
    CHECK(found[i].tokens == all[i].second);
    CHECK(found[i].log_prob == Approx(all[i].first).margin(1e-4));
    CHECK(found[i].score == found[i].log_prob);
    CHECK_FALSE(found[i].finished);
  }
}

TEST_CASE("beam search honours forced tokens and the allowed choices", "[beam]") {
  const Config config = testing::small_decoding_config();
  Transformer model(config, 41);
  Rng rng(41);
  const TokenIds src = random_source(2, 6, config.src_vocab_size, rng);
  BeamOptions options;
  options.beam_size = 3;
  options.max_steps = 7;
  options.forced = testing::nothing_forced(2, 7);
  options.forced(0, 0) = 9;
  options.forced(0, 3) = 4;
  options.forced(1, 5) = 12;
  options.forced(1, 6) = kEosId;         // row 1 must end here at the latest
  options.free_choices = {5, 7, 7, 10};  // an id listed twice counts once
  const BeamResult result = beam_search(model, src, options);
  for (std::size_t b = 0; b < 2; ++b) {
    REQUIRE(result.hypotheses[b].size() == 3);
    for (const Hypothesis& h : result.hypotheses[b]) {
      for (std::size_t t = 0; t < h.tokens.size(); ++t) {
        INFO("source " << b << ", step " << t);
        if (options.forced(b, t) != kFreeToken)
          CHECK(h.tokens[t] == options.forced(b, t));
        else
          CHECK((h.tokens[t] == 5 || h.tokens[t] == 7 || h.tokens[t] == 10));
      }
    }
  }
  // Source 1's hypotheses are all forced to finish at step 6.
  for (const Hypothesis& h : result.hypotheses[1]) {
    CHECK(h.finished);
    CHECK(h.tokens.size() == 7);
  }
}

TEST_CASE("beam search: bad options give clear errors", "[beam]") {
  const Config config = testing::small_decoding_config();
  Transformer model(config, 2);
  Rng rng(2);
  const TokenIds src = random_source(2, 5, config.src_vocab_size, rng);
  BeamOptions options;
  options.max_steps = 4;
  options.beam_size = 0;
  CHECK_THROWS_WITH(beam_search(model, src, options),
                    Catch::Contains("beam_size must be at least 1"));
  options.beam_size = 2;
  options.length_penalty = -1.0f;
  CHECK_THROWS_WITH(beam_search(model, src, options), Catch::Contains("length_penalty"));
  options.length_penalty = std::numeric_limits<float>::quiet_NaN();
  CHECK_THROWS_WITH(beam_search(model, src, options), Catch::Contains("length_penalty"));
  options.length_penalty = 0.6f;
  options.max_steps = 40;
  CHECK_THROWS_WITH(beam_search(model, src, options), Catch::Contains("beam_search: max_steps 40"));
  CHECK(model.training());  // an error leaves the model's mode as it was
}
