#include "tfm/decode/beam_search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "tfm/core/trace.hpp"

namespace tfm {

namespace {

constexpr trace::Component traced("beam_search");

// One row of the beam: a prefix being extended.
struct Beam {
  std::vector<std::int32_t> tokens;                          // generated so far
  float log_prob = -std::numeric_limits<float>::infinity();  // their total log-probability
  bool alive = false;                                        // does this row hold a prefix?
};

// One possible extension: the parent row's prefix followed by `token`.
struct Candidate {
  float log_prob;      // the parent's total plus log p(token)
  float logit;         // the raw logit, for ties (see better())
  std::size_t row;     // parent row
  std::int32_t token;  // the appended token
};

// The order candidates are ranked in: total log-probability, then the raw logit, then the lower
// row and id. log p = logit - logsumexp is monotone in the logit even after float rounding, so
// with one beam this is exactly greedy's "largest logit, smallest id".
bool better(const Candidate& a, const Candidate& b) {
  if (a.log_prob != b.log_prob) return a.log_prob > b.log_prob;
  if (a.logit != b.logit) return a.logit > b.logit;
  if (a.row != b.row) return a.row < b.row;
  return a.token < b.token;
}

// log p = x - log Σ exp(x) over one row x [V] -> out [V]; the maximum is subtracted first so
// that no exponent overflows.
void log_softmax(const float* x, std::size_t V, float* out) {
  const float max = *std::max_element(x, x + V);
  double sum = 0.0;
  for (std::size_t v = 0; v < V; ++v) sum += std::exp(static_cast<double>(x[v] - max));
  const float log_normaliser = max + static_cast<float>(std::log(sum));
  for (std::size_t v = 0; v < V; ++v) out[v] = x[v] - log_normaliser;
}

Hypothesis make_hypothesis(std::vector<std::int32_t> tokens, float log_prob, bool finished,
                           float alpha) {
  const float score = log_prob / length_penalty(tokens.size(), alpha);
  return {std::move(tokens), log_prob, score, finished};
}

}  // namespace

float length_penalty(std::size_t length, float alpha) {
  return std::pow((5.0f + static_cast<float>(length)) / 6.0f, alpha);
}

TokenIds BeamResult::best_tokens() const {
  // -> [B, longest best hypothesis], padded with <pad>
  std::size_t longest = 0;
  for (const auto& per_source : hypotheses)
    if (!per_source.empty()) longest = std::max(longest, per_source.front().tokens.size());
  TokenIds tokens = TokenIds::from_shape({hypotheses.size(), longest});
  tokens.fill(kPadId);
  for (std::size_t b = 0; b < hypotheses.size(); ++b)
    if (!hypotheses[b].empty()) {
      const std::vector<std::int32_t>& best = hypotheses[b].front().tokens;
      std::copy(best.begin(), best.end(), tokens.data() + b * longest);
    }
  return tokens;
}

BeamResult beam_search(Transformer& model, const TokenIds& src, const BeamOptions& options) {
  // src [B, S] -> per source up to K hypotheses, best first
  const char* name = "beam_search";
  const std::size_t max_steps = check_decode_options(model, src, options, name);
  require(options.beam_size >= 1, name, "beam_size must be at least 1");
  require(std::isfinite(options.length_penalty) && options.length_penalty >= 0.0f, name,
          "length_penalty (GNMT's alpha) must be finite and >= 0, got " +
              std::to_string(options.length_penalty));
  const std::size_t B = src.shape(0), K = options.beam_size, V = model.config().tgt_vocab_size;
  const bool forcing = options.forced.size() != 0;
  std::vector<std::int32_t> choices = options.free_choices;  // an id listed twice counts once
  std::sort(choices.begin(), choices.end());
  choices.erase(std::unique(choices.begin(), choices.end()), choices.end());
  EvaluationMode evaluation(model);
  trace::Scope scope("beam search, K = " + std::to_string(K));

  // Beams are the batch axis: row b * K + k is beam k of source b. The source is encoded once,
  // then each row copied K times.
  IncrementalDecoder decoder(model, src, options.cached);
  std::vector<std::size_t> copies(B * K);
  for (std::size_t r = 0; r < B * K; ++r) copies[r] = r / K;
  decoder.select_rows(copies);
  // The K rows of a source start identical, so only the first is alive: otherwise step 0 would
  // fill the beam with K copies of the same prefixes.
  std::vector<Beam> beams(B * K);
  for (std::size_t b = 0; b < B; ++b) beams[b * K] = {{}, 0.0f, true};
  std::vector<std::vector<Hypothesis>> finished(B);
  std::vector<bool> done(B, false);
  TokenIds last = TokenIds::from_shape({B * K, 1});
  last.fill(kBosId);

  std::vector<float> log_probs(V);
  // The trace shows step 0; the other steps only repeat it. restore_trace puts back the
  // setting of the caller even if a step throws.
  const bool tracing = trace::enabled();
  trace::Enable restore_trace(tracing);
  for (std::size_t t = 0; t < max_steps; ++t) {
    if (std::all_of(done.begin(), done.end(), [](bool d) { return d; })) break;
    if (t == 1 && tracing) {
      trace::note("later steps repeat step 0, one position later (not traced)");
      trace::set_enabled(false);
    }
    const Tensor3 logits = decoder.next_logits(last);  // [B * K, 1, V]

    std::vector<Beam> next(B * K);
    std::vector<std::size_t> parents(B * K);
    for (std::size_t r = 0; r < B * K; ++r) parents[r] = r;  // unused rows keep their own cache
    TokenIds next_last = TokenIds::from_shape({B * K, 1});
    next_last.fill(kPadId);  // what the unused rows are fed; their output is ignored

    for (std::size_t b = 0; b < B; ++b) {
      if (done[b]) continue;
      // Every allowed one-token extension of every live beam of this source.
      std::vector<Candidate> candidates;
      for (std::size_t r = b * K; r < (b + 1) * K; ++r) {
        if (!beams[r].alive) continue;
        const float* x = logits.data() + r * V;
        log_softmax(x, V, log_probs.data());
        const auto add = [&](std::int32_t id) {
          candidates.push_back({beams[r].log_prob + log_probs[id], x[id], r, id});
        };
        if (forcing && options.forced(b, t) != kFreeToken) {
          add(options.forced(b, t));  // a forced token is the only extension
        } else if (!choices.empty()) {
          for (std::int32_t id : choices) add(id);
        } else {
          for (std::size_t v = 0; v < V; ++v) add(static_cast<std::int32_t>(v));
        }
      }
      // Each beam has at most one <eos> extension, so K live ones are among the best 2K.
      const std::size_t ranked = std::min(candidates.size(), 2 * K);
      std::partial_sort(candidates.begin(), candidates.begin() + ranked, candidates.end(), better);

      // Walk down the ranking: <eos> among the K best finishes a hypothesis; anything else
      // becomes a live beam until K are kept.
      std::size_t live = 0;
      for (std::size_t i = 0; i < ranked && live < K; ++i) {
        const Candidate& c = candidates[i];
        std::vector<std::int32_t> tokens = beams[c.row].tokens;
        tokens.push_back(c.token);
        if (options.stop_at_eos && c.token == kEosId) {
          if (i < K)
            finished[b].push_back(
                make_hypothesis(std::move(tokens), c.log_prob, true, options.length_penalty));
          continue;
        }
        const std::size_t slot = b * K + live++;
        next[slot] = {std::move(tokens), c.log_prob, true};
        parents[slot] = c.row;  // this row continues its parent's cache
        next_last(slot, 0) = c.token;
      }
      // K finished hypotheses end the search for this source (GNMT-style early stop).
      if (finished[b].size() >= K || live == 0) done[b] = true;
    }
    beams = std::move(next);
    decoder.select_rows(parents);
    last = std::move(next_last);
  }
  trace::set_enabled(tracing);

  // Live beams of a source that is not done ran out of steps: they are hypotheses too.
  BeamResult result;
  result.hypotheses.resize(B);
  for (std::size_t b = 0; b < B; ++b) {
    std::vector<Hypothesis>& hypotheses = finished[b];
    if (!done[b])
      for (std::size_t r = b * K; r < (b + 1) * K; ++r)
        if (beams[r].alive)
          hypotheses.push_back(make_hypothesis(std::move(beams[r].tokens), beams[r].log_prob, false,
                                               options.length_penalty));
    std::stable_sort(hypotheses.begin(), hypotheses.end(),
                     [](const Hypothesis& a, const Hypothesis& c) { return a.score > c.score; });
    if (hypotheses.size() > K) hypotheses.resize(K);
    result.hypotheses[b] = std::move(hypotheses);
  }
  if (trace::enabled())
    traced(result.best_tokens(), "best hypothesis of every source", "tokens", "batch, steps");
  return result;
}

// [generate]
TokenIds generate(Transformer& model, const TokenIds& src, std::size_t beam,
                  const DecodeOptions& options) {
  if (beam <= 1) return greedy_decode(model, src, options).tokens;
  BeamOptions beams;
  static_cast<DecodeOptions&>(beams) = options;
  beams.beam_size = beam;
  return beam_search(model, src, beams).best_tokens();
}
// [generate]

}  // namespace tfm
