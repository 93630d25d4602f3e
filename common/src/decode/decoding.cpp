#include "tfm/decode/decoding.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "tfm/core/trace.hpp"

namespace tfm {

namespace {

constexpr trace::Component traced("greedy_decode");

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

DecodeResult greedy_decode(Transformer& model, const TokenIds& src, const DecodeOptions& options) {
  // src [B, S] -> tokens [B, steps], logits [B, steps, V]
  const std::size_t max_steps = check_decode_options(model, src, options, "greedy_decode");
  const std::size_t B = src.shape(0), V = model.config().tgt_vocab_size;
  const bool forcing = options.forced.size() != 0;
  EvaluationMode evaluation(model);  // dropout off while decoding, the old mode restored after

  trace::Scope scope(std::string("greedy decoding, ") + (options.cached ? "cached" : "uncached"));
  IncrementalDecoder decoder(model, src, options.cached);
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
    const Tensor3 logits = decoder.next_logits(last);  // [B, 1, V]
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
  traced(result.tokens, "generated tokens", "tokens", "batch, steps");
  return result;
}

TokenIds shifted_right(const TokenIds& tokens) {
  // tokens [B, T] -> tgt_in [B, T]: <bos> y0 ... y(T-2)
  TokenIds tgt_in = TokenIds::from_shape(tokens.shape());
  for (std::size_t b = 0; b < tokens.shape(0); ++b) {
    tgt_in(b, 0) = kBosId;
    for (std::size_t t = 1; t < tokens.shape(1); ++t) tgt_in(b, t) = tokens(b, t - 1);
  }
  return tgt_in;
}

}  // namespace tfm
