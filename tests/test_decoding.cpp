// Greedy decoding: the key/value cache against the uncached reference (re-running the decoder on
// the whole prefix), the positional offset of every step (reference 002's bug), forced tokens,
// <eos>, the vowel-restoration helpers, errors and the trace. Small models with random weights.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "decoding_helpers.hpp"
#include "tfm/core/no_grad.hpp"
#include "tfm/core/trace.hpp"
#include "tfm/decode/decoding.hpp"
#include "tfm/decode/incremental_decoding.hpp"
#include "tfm/tasks/vowel_restoration.hpp"

using namespace tfm;
using testing::random_forcing;
using testing::random_source;
using testing::same_ids;

namespace {

double max_abs_diff(const Tensor3& a, const Tensor3& b) {
  REQUIRE(a.shape() == b.shape());
  double worst = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i)
    worst = std::max(worst, std::abs(double(a.data()[i]) - double(b.data()[i])));
  return worst;
}

// Position t of x [B, L, d] -> [B, 1, d].
Tensor3 at_position(const Tensor3& x, std::size_t t) {
  const std::size_t B = x.shape(0), L = x.shape(1), d = x.shape(2);
  Tensor3 out = Tensor3::from_shape({B, 1, d});
  for (std::size_t b = 0; b < B; ++b)
    std::copy(x.data() + (b * L + t) * d, x.data() + (b * L + t + 1) * d, out.data() + b * d);
  return out;
}

// Column t of ids [B, T] -> [B, 1].
TokenIds column(const TokenIds& ids, std::size_t t) {
  TokenIds out = TokenIds::from_shape({ids.shape(0), 1});
  for (std::size_t b = 0; b < ids.shape(0); ++b) out(b, 0) = ids(b, t);
  return out;
}

// The id greedy decoding must choose from one row of logits: the largest among `choices` (all
// ids if empty), the smallest id on ties.
std::int32_t expected_choice(const float* logits, std::size_t vocab,
                             const std::vector<std::int32_t>& choices) {
  std::int32_t best = -1;
  for (std::size_t v = 0; v < vocab; ++v) {
    const auto id = static_cast<std::int32_t>(v);
    if (!choices.empty() && std::find(choices.begin(), choices.end(), id) == choices.end())
      continue;
    if (best < 0 || logits[v] > logits[best]) best = id;
  }
  return best;
}

// Every token follows the rules: forced where forced, <pad> after <eos> (stop_at_eos), and
// elsewhere the best allowed id of the step's own logits.
void check_choices(const DecodeResult& result, const DecodeOptions& options, std::size_t vocab) {
  for (std::size_t b = 0; b < result.tokens.shape(0); ++b) {
    bool finished = false;
    for (std::size_t t = 0; t < result.steps(); ++t) {
      INFO("row " << b << ", step " << t);
      const std::int32_t token = result.tokens(b, t);
      if (finished) {
        CHECK(token == kPadId);
      } else if (options.forced.size() != 0 && options.forced(b, t) != kFreeToken) {
        CHECK(token == options.forced(b, t));
      } else {
        const float* row = result.logits.data() + (b * result.steps() + t) * vocab;
        CHECK(token == expected_choice(row, vocab, options.free_choices));
      }
      if (options.stop_at_eos && token == kEosId) finished = true;
    }
  }
}

}  // namespace

TEST_CASE("KeyValueCache: attention step by step equals forward on the whole sequence",
          "[decoding][mha]") {
  Rng rng(7);
  MultiHeadAttention mha(16, 4, true, rng);
  const std::size_t B = 2, L = 5, S = 7;
  Tensor3 x = Tensor3::from_shape({B, L, 16}), memory = Tensor3::from_shape({B, S, 16});
  rng.fill_normal(x, 0, 1);
  rng.fill_normal(memory, 0, 1);
  TokenIds source = TokenIds::from_shape({B, S});
  source.fill(5);
  source(1, S - 1) = source(1, S - 2) = kPadId;  // row 1 has two padded keys

  // No positions: what a step gives cross-attention once its cache holds the memory.
  const Tensor3 none = Tensor3::from_shape({B, 0, 16});

  SECTION("self-attention: one new key/value row per step, no causal mask needed") {
    const Mask causal = subsequent_mask(B, L);
    const Tensor3 full = mha.forward(x, x, &causal);
    KeyValueCache cache;
    CHECK(cache.empty());
    for (std::size_t t = 0; t < L; ++t) {
      const Tensor3 newest = at_position(x, t);
      NoGrad no_grad;  // decoding is inference
      const Tensor3 out = mha.forward(newest, newest, nullptr, &cache);
      CHECK(cache.length() == t + 1);
      CHECK(cache.keys.shape() == std::array<std::size_t, 4>{B, 4, t + 1, 4});
      CHECK(max_abs_diff(out, at_position(full, t)) < 1e-5);
    }
    // A step keeps nothing for backward, and leaves what forward kept alone: backward after the
    // steps is backward after forward.
    Tensor3 grad_output = Tensor3::from_shape(full.shape());
    rng.fill_normal(grad_output, 0, 1);
    const MultiHeadAttention::Grads after_steps = mha.backward(grad_output);
    mha.forward(x, x, &causal);
    const MultiHeadAttention::Grads after_forward = mha.backward(grad_output);
    CHECK(max_abs_diff(after_steps.query_input, after_forward.query_input) == 0.0);
    CHECK(max_abs_diff(after_steps.memory, after_forward.memory) == 0.0);
  }
  SECTION("cross-attention: the memory is projected once, then only read") {
    const Mask full_mask = padding_mask(source, L), step_mask = padding_mask(source, 1);
    const Tensor3 full = mha.forward(x, memory, &full_mask);
    KeyValueCache cache;
    NoGrad no_grad;
    for (std::size_t t = 0; t < L; ++t) {
      const Tensor3 out =
          mha.forward(at_position(x, t), t == 0 ? memory : none, &step_mask, &cache);
      CHECK(cache.length() == S);
      CHECK(max_abs_diff(out, at_position(full, t)) < 1e-5);
    }
  }
  SECTION("select_rows copies whole rows; bad input is reported") {
    KeyValueCache cache;
    select_rows(cache, {0, 0});  // an empty cache stays empty
    CHECK(cache.empty());
    CHECK_THROWS_WITH(mha.forward(at_position(x, 0), memory, nullptr, &cache),
                      Catch::Contains("a key/value cache is for decoding: use NoGrad"));
    NoGrad no_grad;
    mha.forward(at_position(x, 0), memory, nullptr, &cache);
    const Tensor4 keys = cache.keys;
    select_rows(cache, {1, 1, 0});
    REQUIRE(cache.keys.shape(0) == 3);
    const std::size_t row = keys.size() / B;
    CHECK(std::equal(keys.data() + row, keys.data() + 2 * row, cache.keys.data()));
    CHECK(std::equal(keys.data() + row, keys.data() + 2 * row, cache.keys.data() + row));
    CHECK(std::equal(keys.data(), keys.data() + row, cache.keys.data() + 2 * row));
    CHECK_THROWS_WITH(select_rows(cache, {3}), Catch::Contains("row 3 selected from a batch of 3"));
    KeyValueCache empty;  // and no new position: no key at all
    CHECK_THROWS_WITH(mha.forward(at_position(x, 0), none, nullptr, &empty),
                      Catch::Contains("key has shape [0, 0, 0, 0]"));
    Tensor3 wide = Tensor3::from_shape({B, 1, 8});
    CHECK_THROWS_AS(mha.forward(at_position(x, 0), wide, nullptr, &empty), ShapeError);
  }
}

TEST_CASE("Transformer: decode equals forward, and step equals decode at every position",
          "[decoding]") {
  Transformer model(testing::small_decoding_config(), 3);
  model.set_training(false);
  Rng rng(11);
  const TokenIds src = random_source(3, 6, 11, rng);
  TokenIds tgt_in = random_source(3, 7, 13, rng);
  for (std::size_t b = 0; b < 3; ++b) tgt_in(b, 0) = kBosId;
  tgt_in(2, 5) = tgt_in(2, 6) = kPadId;  // a row that finished: <pad> inputs are masked as keys

  const Tensor3 memory = encode(model, src);
  CHECK(memory.shape() == std::array<std::size_t, 3>{3, 6, 16});
  const Tensor3 logits = decoder_logits(model, src, memory, tgt_in);
  // The same code on the same numbers: bit for bit.
  CHECK(max_abs_diff(logits, model.forward(src, tgt_in)) == 0.0);

  DecoderCache cache;
  double worst = 0.0;
  for (std::size_t t = 0; t < 7; ++t) {
    const Tensor3 logits_t = next_token_logits(model, src, memory, column(tgt_in, t), t, cache);
    REQUIRE(logits_t.shape() == std::array<std::size_t, 3>{3, 1, 13});
    CHECK(cache.length() == t + 1);
    worst = std::max(worst, max_abs_diff(logits_t, at_position(logits, t)));
  }
  CHECK(worst < 1e-5);
}

TEST_CASE("decoding between a forward and its backward changes no gradient", "[decoding]") {
  // Decoding runs under NoGrad: what forward kept for backward must survive it.
  const Config config = testing::small_decoding_config();
  Rng rng(12);
  const TokenIds src = random_source(3, 6, config.src_vocab_size, rng);
  TokenIds tgt_in = random_source(3, 7, config.tgt_vocab_size, rng);
  for (std::size_t b = 0; b < 3; ++b) tgt_in(b, 0) = kBosId;
  const TokenIds other_src = random_source(2, 4, config.src_vocab_size, rng);
  const auto gradients = [&](bool decode_in_between, bool cached) {
    Transformer model(config, 4);
    model.set_training(false);  // no dropout: the two runs must see the same numbers
    const Tensor3 logits = model.forward(src, tgt_in);
    if (decode_in_between) {
      DecodeOptions options;
      options.max_steps = 5;
      options.cached = cached;
      greedy_decode(model, other_src, options);  // another batch, other shapes
    }
    model.backward(xt::ones<float>(logits.shape()));
    std::vector<float> all;
    for (const ParameterRef& p : parameters_of(model))
      all.insert(all.end(), p.grad, p.grad + p.size);
    return all;
  };
  const std::vector<float> plain = gradients(false, false);
  CHECK(gradients(true, true) == plain);
  CHECK(gradients(true, false) == plain);
}

TEST_CASE("greedy decoding: cached and uncached give the same tokens and logits", "[decoding]") {
  const Config config = testing::small_decoding_config();
  for (std::uint64_t seed : {1, 2, 3}) {
    for (std::size_t batch : {1, 3, 5}) {
      for (bool forcing : {false, true}) {
        INFO("seed " << seed << ", batch " << batch << ", forcing " << forcing);
        Transformer model(config, seed);
        Rng rng(seed * 100 + batch);
        const TokenIds src = random_source(batch, 4 + seed, config.src_vocab_size, rng);
        DecodeOptions options;
        options.max_steps = 9;
        if (forcing) {
          options.forced = random_forcing(batch, 9, config.tgt_vocab_size, rng);
          options.free_choices = {4, 6, 7, 9, 12};
        }
        const DecodeResult cached = greedy_decode(model, src, options);
        options.cached = false;
        const DecodeResult uncached = greedy_decode(model, src, options);

        REQUIRE(cached.tokens.shape(0) == batch);  // fewer than 9 steps if every row ends in <eos>
        CHECK(same_ids(cached.tokens, uncached.tokens));
        CHECK(max_abs_diff(cached.logits, uncached.logits) < 1e-5);
        check_choices(cached, options, config.tgt_vocab_size);
      }
    }
  }
}

TEST_CASE("greedy decoding: every step gets the encoding of its own position (reference 002's bug)",
          "[decoding]") {
  // 002 fed each new token with the positional encoding of position 0. Rebuild that decoder by
  // hand from the library's pieces: with the true positions it must reproduce next_token_logits()
  // exactly, with position 0 it must agree at step 0 only.
  const Config config = testing::small_decoding_config();
  Transformer model(config, 5);
  model.set_training(false);
  Rng rng(5);
  const TokenIds src = random_source(2, 6, config.src_vocab_size, rng);
  DecodeOptions options;
  options.max_steps = 8;
  options.stop_at_eos = false;  // all 8 steps, whatever the random model emits
  const DecodeResult greedy = greedy_decode(model, src, options);
  const TokenIds tgt_in = shifted_right(greedy.tokens);  // what the decoder was fed

  Embedding& embedding = model.tgt_embedding ? *model.tgt_embedding : model.src_embedding;
  const PositionalEncoding table(config.max_len, config.d_model);
  const Tensor3 memory = encode(model, src);
  const Mask cross_mask = padding_mask(src, 1);
  // Step t by hand: embed, add the table row `position`, run every layer's step.
  struct ByHand {
    std::vector<DecoderLayerCache> layers;
    TokenIds fed;
  };
  const auto step_by_hand = [&](ByHand& state, const TokenIds& last, std::size_t t,
                                std::size_t position) {
    state.layers.resize(model.decoder.layers.size());
    TokenIds fed = TokenIds::from_shape({last.shape(0), t + 1});  // the tokens of steps 0 .. t
    for (std::size_t b = 0; b < last.shape(0); ++b) {
      for (std::size_t j = 0; j < t; ++j) fed(b, j) = state.fed(b, j);
      fed(b, t) = last(b, 0);
    }
    state.fed = fed;
    const Mask self_mask = padding_mask(state.fed, 1);
    Tensor3 x = embedding.forward(last);
    table.add_to(x, position);
    NoGrad no_grad;
    for (std::size_t i = 0; i < model.decoder.layers.size(); ++i)
      x = model.decoder.layers[i].forward(x, memory, &self_mask, &cross_mask, &state.layers[i]);
    return model.generator.forward(x);
  };

  DecoderCache cache;
  ByHand right, wrong;  // both are fed the same tokens; only the positional encoding differs
  for (std::size_t t = 0; t < 8; ++t) {
    INFO("step " << t);
    const TokenIds last = column(tgt_in, t);
    const Tensor3 correct = next_token_logits(model, src, memory, last, t, cache);
    CHECK(max_abs_diff(correct, at_position(greedy.logits, t)) < 1e-6);
    CHECK(max_abs_diff(step_by_hand(right, last, t, t), correct) < 1e-6);
    const double error_002 = max_abs_diff(step_by_hand(wrong, last, t, 0), correct);
    if (t == 0)
      CHECK(error_002 < 1e-6);
    else
      CHECK(error_002 > 1e-2);  // the bug changes the logits: a test comparing them catches it
  }
}

TEST_CASE("greedy decoding: <eos> finishes a row, which then emits <pad>", "[decoding]") {
  const Config config = testing::small_decoding_config();
  Transformer model(config, 8);
  Rng rng(8);
  const TokenIds src = random_source(3, 5, config.src_vocab_size, rng);
  DecodeOptions options;
  options.max_steps = 8;
  options.forced = testing::nothing_forced(3, 8);
  options.forced(0, 2) = options.forced(1, 4) = options.forced(2, 1) = kEosId;

  SECTION("stop_at_eos: pads after <eos>, and decoding ends when every row has finished") {
    const DecodeResult cached = greedy_decode(model, src, options);
    std::size_t last_eos = 0;
    for (std::size_t b = 0; b < 3; ++b) {
      std::size_t first_eos = options.max_steps;
      for (std::size_t t = 0; t < cached.steps() && first_eos == options.max_steps; ++t)
        if (cached.tokens(b, t) == kEosId) first_eos = t;
      REQUIRE(first_eos < cached.steps());
      last_eos = std::max(last_eos, first_eos);
    }
    CHECK(cached.steps() == last_eos + 1);
    CHECK(cached.steps() <= 5);  // row 1 is forced to finish at step 4
    CHECK(cached.logits.shape() == std::array<std::size_t, 3>{3, cached.steps(), 13});
    check_choices(cached, options, config.tgt_vocab_size);
    // The finished rows are fed <pad>, masked as keys in both decoders alike.
    options.cached = false;
    const DecodeResult uncached = greedy_decode(model, src, options);
    CHECK(same_ids(cached.tokens, uncached.tokens));
    CHECK(max_abs_diff(cached.logits, uncached.logits) < 1e-5);
  }
  SECTION("without stop_at_eos, <eos> is a token like any other") {
    options.stop_at_eos = false;
    const DecodeResult result = greedy_decode(model, src, options);
    CHECK(result.steps() == 8);
    CHECK(result.tokens(0, 2) == kEosId);
    check_choices(result, options, config.tgt_vocab_size);
  }
  SECTION("a model that always prefers <eos> stops after one step") {
    options.forced = TokenIds();
    model.generator.bias.value(kEosId) += 1000.0f;
    const DecodeResult result = greedy_decode(model, src, options);
    CHECK(result.steps() == 1);
    CHECK(same_ids(result.tokens, TokenIds({{kEosId}, {kEosId}, {kEosId}})));
  }
}

TEST_CASE("greedy decoding runs with dropout off and restores the model's mode", "[decoding]") {
  const Config config = testing::small_decoding_config();
  Transformer model(config, 4);
  Rng rng(4);
  const TokenIds src = random_source(2, 6, config.src_vocab_size, rng);
  DecodeOptions options;
  options.max_steps = 6;
  REQUIRE(model.training());
  const DecodeResult from_training = greedy_decode(model, src, options);
  CHECK(model.training());
  model.set_training(false);
  const DecodeResult from_evaluation = greedy_decode(model, src, options);
  CHECK_FALSE(model.training());
  CHECK(same_ids(from_training.tokens, from_evaluation.tokens));
  CHECK(max_abs_diff(from_training.logits, from_evaluation.logits) == 0.0);
  // max_steps 0: the model's tgt_len.
  options.max_steps = 0;
  options.stop_at_eos = false;
  CHECK(greedy_decode(model, src, options).steps() == config.tgt_len);
}

TEST_CASE("vowel restoration: letters shown in the input are kept, only '*' is chosen",
          "[decoding][vowels]") {
  const Vocabulary vocabulary = vowel_vocabulary();
  const std::string masked = mask_vowels("the time machine");
  REQUIRE(masked == "th* t*m* m*ch*n*");
  const std::vector<std::int32_t> ids = vocabulary.encode(masked, OnUnknown::kThrow);
  TokenIds src = TokenIds::from_shape({2, ids.size()});
  for (std::size_t j = 0; j < ids.size(); ++j) src(0, j) = src(1, j) = ids[j];
  src(1, ids.size() - 1) = kPadId;  // nothing to copy: free

  const TokenIds forced = vowel_forcing(src, vocabulary, vocabulary);
  for (std::size_t j = 0; j < ids.size(); ++j) {
    INFO("character " << j);
    CHECK(forced(0, j) == (masked[j] == '*' ? kFreeToken : ids[j]));
  }
  CHECK(forced(1, ids.size() - 1) == kFreeToken);

  SECTION("the forcing maps characters by symbol into another target vocabulary") {
    const Vocabulary target(Tokenization::kCharacters,
                            {"n", "m", "t", "h", "c", " ", "a", "e", "i", "o", "u"});
    const TokenIds mapped = vowel_forcing(src, vocabulary, target);
    for (std::size_t j = 0; j < ids.size(); ++j)
      if (masked[j] != '*') CHECK(mapped(0, j) == target.id(std::string(1, masked[j])));
    const Vocabulary no_h(Tokenization::kCharacters, {"n", "m", "t", "c", " "});
    CHECK_THROWS_AS(vowel_forcing(src, vocabulary, no_h), VocabularyError);
    CHECK(vowel_ids(target) == std::vector<std::int32_t>{10, 11, 12, 13, 14});
  }
  SECTION("decoding with the forcing and the vowel constraint") {
    Config config = testing::small_decoding_config();
    config.src_vocab_size = config.tgt_vocab_size = vocabulary.size();
    Transformer model(config, 9);
    DecodeOptions options;
    options.forced = forced;  // max_steps 0: one step per source character
    options.free_choices = vowel_ids(vocabulary);
    const DecodeResult cached = greedy_decode(model, src, options);
    REQUIRE(cached.steps() == ids.size());
    const std::string restored = vocabulary.decode(row(cached.tokens, 0));
    REQUIRE(restored.size() == masked.size());
    for (std::size_t j = 0; j < masked.size(); ++j) {
      INFO("character " << j << " of '" << restored << "'");
      if (masked[j] == '*')
        CHECK(std::string("aeiou").find(restored[j]) != std::string::npos);
      else
        CHECK(restored[j] == masked[j]);
    }
    options.cached = false;
    const DecodeResult uncached = greedy_decode(model, src, options);
    CHECK(same_ids(cached.tokens, uncached.tokens));
    CHECK(max_abs_diff(cached.logits, uncached.logits) < 1e-5);
  }
}

TEST_CASE("greedy decoding: bad input gives clear errors", "[decoding]") {
  const Config config = testing::small_decoding_config();
  Transformer model(config, 2);
  Rng rng(2);
  const TokenIds src = random_source(2, 5, config.src_vocab_size, rng);
  DecodeOptions options;
  options.max_steps = 4;

  // TokenIds has rank 2 by type; an empty batch or an empty sequence is the shape error left.
  CHECK_THROWS_AS(greedy_decode(model, TokenIds::from_shape({0, 5}), options), ShapeError);
  CHECK_THROWS_WITH(greedy_decode(model, TokenIds::from_shape({2, 0}), options),
                    Catch::Contains("src has shape [2, 0], expected at least one sequence"));
  TokenIds bad = src;
  bad(1, 2) = 11;
  CHECK_THROWS_WITH(greedy_decode(model, bad, options),
                    Catch::Contains("src[1, 2] = 11 is not a source token id (vocabulary of 11"));
  bad(1, 2) = -3;
  CHECK_THROWS_AS(greedy_decode(model, bad, options), std::invalid_argument);

  options.max_steps = 33;
  CHECK_THROWS_WITH(greedy_decode(model, src, options),
                    Catch::Contains("max_steps 33 needs positions 0 .. 32, but the "
                                    "positional-encoding table has max_len 32"));
  options.max_steps = 32;  // the largest that fits
  CHECK(greedy_decode(model, src, options).steps() <= 32);

  options.max_steps = 4;
  options.forced = testing::nothing_forced(2, 5);
  CHECK_THROWS_WITH(greedy_decode(model, src, options),
                    Catch::Contains("forced has shape [2, 5], expected [2, 4]"));
  options.forced = testing::nothing_forced(2, 4);
  options.forced(0, 1) = 13;
  CHECK_THROWS_WITH(
      greedy_decode(model, src, options),
      Catch::Contains("forced[0, 1] = 13 is neither kFreeToken (-1) nor a target id"));
  options.forced = TokenIds();
  options.free_choices = {4, -2};
  CHECK_THROWS_WITH(greedy_decode(model, src, options),
                    Catch::Contains("free_choices holds -2, not a target id"));

  // The step API itself: inference only, one position after the other.
  DecoderCache cache;
  TokenIds bos = TokenIds::from_shape({2, 1});
  bos.fill(kBosId);
  model.set_training(true);
  const Tensor3 memory = encode(model, src);
  CHECK_THROWS_WITH(next_token_logits(model, src, memory, bos, 0, cache),
                    Catch::Contains("call set_training(false) first"));
  CHECK_THROWS_WITH(IncrementalDecoder(model, src, true), Catch::Contains("decoding is inference"));
  model.set_training(false);
  CHECK_THROWS_WITH(next_token_logits(model, src, memory, bos, 3, cache),
                    Catch::Contains("position 3 given, but the cache holds 0 positions"));
  CHECK_THROWS_AS(next_token_logits(model, src, memory, TokenIds::from_shape({2, 2}), 0, cache),
                  ShapeError);
  next_token_logits(model, src, memory, bos, 0, cache);
  CHECK_THROWS_WITH(next_token_logits(model, src, memory, bos, 0, cache),
                    Catch::Contains("position 0 given, but the cache holds 1 positions"));
}

TEST_CASE("greedy decoding: the trace shows the first step once", "[decoding][trace]") {
  const Config config = testing::small_decoding_config();
  Transformer model(config, 6);
  Rng rng(6);
  const TokenIds src = random_source(2, 5, config.src_vocab_size, rng);
  DecodeOptions options;
  options.max_steps = 4;
  for (bool cached : {true, false}) {
    INFO("cached " << cached);
    options.cached = cached;
    trace::Capture capture;
    trace::Enable on;
    greedy_decode(model, src, options);
    CHECK(trace::enabled());  // restored after the silent steps
    const std::vector<std::string> lines = capture.lines();
    // Lines that contain `text` (and `also`).
    const auto count = [&](const std::string& text, const std::string& also = "") {
      return static_cast<std::size_t>(
          std::count_if(lines.begin(), lines.end(), [&](const std::string& line) {
            return line.find(text) != std::string::npos && line.find(also) != std::string::npos;
          }));
    };
    CHECK(count(cached ? "step (position 0)" : "decode (the whole prefix)") == 1);
    CHECK(count("position 1") == 0);
    CHECK(count("steps 1 .. 3 repeat step 0") == 1);
    CHECK(count("generated tokens") == 1);
    CHECK(count("tokens -> [2, 4]") == 1);
    if (cached) {
      // Step 0's self-attention cache holds one position per head: [batch, heads, 1, d_k].
      const std::string append = "[MultiHeadAttention] append keys to the cache";
      CHECK(count(append) == 2 * config.n_decoder_layers);  // self- and cross-attention
      CHECK(count(append, "K -> [2, 4, 1, 4]") == config.n_decoder_layers);
      CHECK(count(append, "K -> [2, 4, 5, 4]") == config.n_decoder_layers);  // the encoder output
    }
  }
}
