#include "tfm/decoding.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "tfm/trace.hpp"
#include "tfm/vowel_restoration.hpp"

namespace tfm {

namespace {

// Row rows[i] of x becomes row i: x [B, ...] -> [rows.size(), ...].
template <class Tensor>
Tensor select_batch_rows(const Tensor& x, const std::vector<std::size_t>& rows) {
  if (x.size() == 0) return x;
  auto shape = x.shape();
  const std::size_t row_size = x.size() / shape[0];
  shape[0] = rows.size();
  Tensor out = Tensor::from_shape(shape);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    require(rows[i] < x.shape(0), "StepDecoder",
            "row " + std::to_string(rows[i]) + " selected from a batch of " +
                std::to_string(x.shape(0)));
    std::copy(x.data() + rows[i] * row_size, x.data() + (rows[i] + 1) * row_size,
              out.data() + i * row_size);
  }
  return out;
}

// prefix [B, t], last [B, 1] -> [B, t + 1].
TokenIds append_column(const TokenIds& prefix, const TokenIds& last) {
  const std::size_t B = last.shape(0), t = prefix.size() == 0 ? 0 : prefix.shape(1);
  TokenIds out = TokenIds::from_shape({B, t + 1});
  for (std::size_t b = 0; b < B; ++b) {
    for (std::size_t j = 0; j < t; ++j) out(b, j) = prefix(b, j);
    out(b, t) = last(b, 0);
  }
  return out;
}

// The id the model prefers among `choices` (every id if empty): the largest logit, ties going
// to the smallest id, as std::max_element over all ids would choose.
std::int32_t best_choice(const float* logits, std::size_t vocab,
                         const std::vector<std::int32_t>& choices) {
  if (choices.empty())
    return static_cast<std::int32_t>(std::max_element(logits, logits + vocab) - logits);
  std::int32_t best = choices.front();
  for (std::int32_t id : choices)
    if (logits[id] > logits[best] || (logits[id] == logits[best] && id < best)) best = id;
  return best;
}

std::string id_range(std::size_t vocab) {
  return "(vocabulary of " + std::to_string(vocab) + ": ids 0 .. " + std::to_string(vocab - 1) +
         ")";
}

}  // namespace

std::size_t check_decode_options(const Transformer& model, const TokenIds& src,
                                 const DecodeOptions& options, const char* who) {
  const Config& config = model.config();
  require(src.shape(0) > 0 && src.shape(1) > 0, who,
          "src has shape " + shape_string(src.shape()) +
              ", expected at least one sequence of at least one token (batch, src_len)");
  for (std::size_t b = 0; b < src.shape(0); ++b)
    for (std::size_t j = 0; j < src.shape(1); ++j)
      if (src(b, j) < 0 || static_cast<std::size_t>(src(b, j)) >= config.src_vocab_size)
        throw std::invalid_argument(std::string(who) + ": src[" + std::to_string(b) + ", " +
                                    std::to_string(j) + "] = " + std::to_string(src(b, j)) +
                                    " is not a source token id " + id_range(config.src_vocab_size));

  const bool forcing = options.forced.size() != 0;
  const std::size_t steps = options.max_steps != 0 ? options.max_steps
                            : forcing              ? options.forced.shape(1)
                                                   : config.tgt_len;
  require(steps >= 1, who, "max_steps must be at least 1");
  // Step t feeds the token at position t, so the last step needs row steps - 1 of the table.
  require(steps <= config.max_len, who,
          "max_steps " + std::to_string(steps) + " needs positions 0 .. " +
              std::to_string(steps - 1) + ", but the positional-encoding table has max_len " +
              std::to_string(config.max_len) + " rows");

  const std::size_t vocab = config.tgt_vocab_size;
  if (forcing) {
    require_shape(who, "forced", options.forced, {src.shape(0), steps}, "(batch, max_steps)");
    for (std::size_t b = 0; b < src.shape(0); ++b)
      for (std::size_t t = 0; t < steps; ++t) {
        const std::int32_t id = options.forced(b, t);
        if (id != kFreeToken && (id < 0 || static_cast<std::size_t>(id) >= vocab))
          throw std::invalid_argument(std::string(who) + ": forced[" + std::to_string(b) + ", " +
                                      std::to_string(t) + "] = " + std::to_string(id) +
                                      " is neither kFreeToken (-1) nor a target id " +
                                      id_range(vocab));
      }
  }
  for (std::int32_t id : options.free_choices)
    if (id < 0 || static_cast<std::size_t>(id) >= vocab)
      throw std::invalid_argument(std::string(who) + ": free_choices holds " + std::to_string(id) +
                                  ", not a target id " + id_range(vocab));
  return steps;
}

StepDecoder::StepDecoder(Transformer& model, const TokenIds& src, bool cached)
    : model_(model), cached_(cached), src_(src) {
  require(
      !model.training(), "StepDecoder",
      "decoding is inference: switch dropout off first (set_training(false) or EvaluationMode)");
  memory_ = model_.encode(src_);
}

// [step decoder]
Tensor3 StepDecoder::step(const TokenIds& last) {
  // last [B, 1] (the token at position t) -> logits [B, 1, V] (for position t + 1)
  Tensor3 logits;
  if (cached_) {
    // The newest token only; every earlier position is in the cache.
    logits = model_.decode_step(src_, memory_, last, position_, cache_);
  } else {
    // The obvious way: run the decoder on the whole prefix and keep its last position.
    prefix_ = append_column(prefix_, last);
    const Tensor3 all = model_.decode(src_, memory_, prefix_);  // [B, t + 1, V]
    const std::size_t B = all.shape(0), T = all.shape(1), V = all.shape(2);
    logits = Tensor3::from_shape({B, 1, V});
    for (std::size_t b = 0; b < B; ++b)
      std::copy(all.data() + (b * T + T - 1) * V, all.data() + (b * T + T) * V,
                logits.data() + b * V);
  }
  ++position_;
  return logits;
}
// [step decoder]

void StepDecoder::select_rows(const std::vector<std::size_t>& rows) {
  src_ = select_batch_rows(src_, rows);
  memory_ = select_batch_rows(memory_, rows);
  prefix_ = select_batch_rows(prefix_, rows);
  cache_.select_rows(rows);
}

// [greedy decode]
DecodeResult greedy_decode(Transformer& model, const TokenIds& src, const DecodeOptions& options) {
  // src [B, S] -> tokens [B, steps], logits [B, steps, V]
  const std::size_t max_steps = check_decode_options(model, src, options, "greedy_decode");
  const std::size_t B = src.shape(0), V = model.config().tgt_vocab_size;
  const bool forcing = options.forced.size() != 0;
  EvaluationMode evaluation(model);  // dropout off while decoding, the old mode restored after

  trace::Scope scope(std::string("greedy decoding, ") + (options.cached ? "cached" : "uncached"));
  StepDecoder decoder(model, src, options.cached);
  DecodeResult result{TokenIds::from_shape({B, max_steps}), Tensor3::from_shape({B, max_steps, V})};
  TokenIds last = TokenIds::from_shape({B, 1});
  last.fill(kBosId);
  std::vector<bool> finished(B, false);
  std::size_t steps = 0;
  // The trace shows step 0; the other steps only repeat it. restore_trace puts back the
  // setting of the caller even if a step throws.
  const bool tracing = trace::enabled();
  trace::Enable restore_trace(tracing);

  while (steps < max_steps) {
    const std::size_t t = steps;
    if (t == 1 && tracing) {
      trace::note("steps 1 .. " + std::to_string(max_steps - 1) +
                  " repeat step 0, one position later (not traced)");
      trace::set_enabled(false);
    }
    const Tensor3 logits = decoder.step(last);  // [B, 1, V]
    for (std::size_t b = 0; b < B; ++b) {
      const float* row = logits.data() + b * V;
      std::copy(row, row + V, result.logits.data() + (b * max_steps + t) * V);
      std::int32_t token;
      if (finished[b])
        token = kPadId;
      else if (forcing && options.forced(b, t) != kFreeToken)
        token = options.forced(b, t);
      else
        token = best_choice(row, V, options.free_choices);
      if (options.stop_at_eos && token == kEosId) finished[b] = true;
      result.tokens(b, t) = token;
      last(b, 0) = token;
    }
    ++steps;
    if (options.stop_at_eos &&
        std::all_of(finished.begin(), finished.end(), [](bool f) { return f; }))
      break;
  }
  trace::set_enabled(tracing);

  if (steps < max_steps) {  // every row finished early: keep the steps that ran
    DecodeResult ran{TokenIds::from_shape({B, steps}), Tensor3::from_shape({B, steps, V})};
    for (std::size_t b = 0; b < B; ++b) {
      for (std::size_t t = 0; t < steps; ++t) ran.tokens(b, t) = result.tokens(b, t);
      const float* from = result.logits.data() + b * max_steps * V;
      std::copy(from, from + steps * V, ran.logits.data() + b * steps * V);
    }
    result = std::move(ran);
  }
  trace::step("greedy_decode", "generated tokens", "tokens", result.tokens, "batch, steps");
  return result;
}
// [greedy decode]

// [vowel forcing]
TokenIds vowel_forcing(const TokenIds& src, const Vocabulary& source_vocabulary,
                       const Vocabulary& target_vocabulary) {
  // src [B, S] (vowels hidden as '*') -> forced [B, S]
  const std::int32_t hidden = source_vocabulary.id(std::string(1, kVowelMask));
  TokenIds forced = TokenIds::from_shape(src.shape());
  for (std::size_t i = 0; i < src.size(); ++i) {
    const std::int32_t id = src.data()[i];
    // A '*' is the model's to fill; a letter or a space shown in the input is kept as it is.
    forced.data()[i] = (id == hidden || (id >= 0 && id < kFirstSymbolId))
                           ? kFreeToken
                           : target_vocabulary.id(source_vocabulary.symbol(id));
  }
  return forced;
}
// [vowel forcing]

std::vector<std::int32_t> vowel_ids(const Vocabulary& vocabulary) {
  std::vector<std::int32_t> ids;
  for (const char* vowel : {"a", "e", "i", "o", "u"}) ids.push_back(vocabulary.id(vowel));
  return ids;
}

}  // namespace tfm
