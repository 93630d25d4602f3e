/// \file beam_search.hpp
/// \brief Chapter 11: beam search — keep the K most probable prefixes at every step instead of
/// the single best one, and rank the finished ones with a length normalisation.
///
/// Beams are the batch axis: source b owns rows b·K .. b·K + K − 1 of every tensor the decoder
/// sees. Each step scores all K·V one-token extensions of the live beams, keeps the best K, and
/// reorders the key/value cache so that every row holds its parent beam's cache.
///
/// Ranking uses GNMT's length penalty (Wu et al. 2016, eq. 14):
/// \f[ \mathrm{score}(Y) = \frac{\log P(Y \mid X)}{\mathrm{lp}(Y)}, \qquad
///     \mathrm{lp}(Y) = \left(\frac{5 + |Y|}{6}\right)^{\alpha} \f]
/// where \f$ |Y| \f$ counts the generated tokens (`<eos>` included). \f$ \alpha = 0 \f$ ranks by
/// the plain sum of log-probabilities, which favours short outputs; larger \f$ \alpha \f$
/// favours longer ones. Live beams all have the same length, so the penalty only matters when
/// hypotheses of different lengths are compared: among the finished ones, at the end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tfm/decode/decoding.hpp"

namespace tfm {

/// DecodeOptions (max_steps, stop_at_eos, cached, forced, free_choices: the same meaning) plus
/// the beam's own settings.
struct BeamOptions : DecodeOptions {
  std::size_t beam_size = 4;    ///< K: prefixes kept per source; K = 1 is greedy decoding
  float length_penalty = 0.6f;  ///< GNMT's alpha (0.6 in their paper); 0 = no normalisation
};

/// One finished (or, at max_steps, unfinished) output of beam search.
struct Hypothesis {
  std::vector<std::int32_t> tokens;  ///< generated tokens, `<bos>` not included
  float log_prob = 0.0f;             ///< sum of log p(token | prefix, source) over the tokens
  float score = 0.0f;                ///< log_prob / length_penalty(tokens.size(), alpha)
  bool finished = false;             ///< ended with `<eos>` (else max_steps stopped it)
};

/// What beam search produced.
struct BeamResult {
  /// Per source row: up to K hypotheses, best score first.
  std::vector<std::vector<Hypothesis>> hypotheses;
  /// `[B, longest]`: each source's best hypothesis, padded with `<pad>` (the shape greedy
  /// decoding returns).
  TokenIds best_tokens() const;
};

/// GNMT's \f$ ((5 + \mathrm{length}) / 6)^{\alpha} \f$.
float length_penalty(std::size_t length, float alpha);

/// Beam search over src `[B, S]`: at every step each source keeps the K best prefixes by total
/// log-probability; a prefix that emits `<eos>` among the K best candidates becomes a finished
/// hypothesis. A source is done when it has K finished hypotheses (or no live beam); at
/// max_steps its live beams join as unfinished hypotheses. Forced tokens are the only candidate
/// at their step; free_choices restricts the others. Ties go to the larger logit, then to the
/// lower beam and id, so that K = 1 chooses exactly what greedy_decode chooses. Runs with
/// dropout off. Throws as greedy_decode does, and for beam_size 0 or a negative or non-finite
/// length_penalty.
BeamResult beam_search(Transformer& model, const TokenIds& src, const BeamOptions& options = {});

/// Tokens from a model, the way every tfm::Task generates them: src `[B, S]` -> `[B, T]` by
/// greedy_decode for `beam` = 1 (or 0), else the best hypothesis of beam_search with `beam`
/// beams, both under `options`.
TokenIds generate(Transformer& model, const TokenIds& src, std::size_t beam,
                  const DecodeOptions& options);

}  // namespace tfm
