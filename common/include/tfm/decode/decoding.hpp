/// \file decoding.hpp
/// \brief Chapter 11: generating a target one token at a time — greedy decoding, with a
/// key/value cache or by re-running the decoder on the whole prefix (the reference the cache
/// must agree with), with optional forced tokens and a restricted choice.
///
/// Step t feeds the token at position t (`<bos>` at 0) and reads the logits of position t + 1:
///
///     step 0:  <bos>          -> y0
///     step 1:  <bos> y0       -> y1        (uncached: the decoder re-runs on both tokens;
///     step 2:  <bos> y0 y1    -> y2         cached: it runs on the newest token only)
///
/// The steps themselves, and the key/value cache, are IncrementalDecoder's
/// (incremental_decoding.hpp). Both ways give the same tokens, and the same logits up to float
/// rounding; the tests check it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tfm/core/tensor.hpp"
#include "tfm/data/vocabulary.hpp"
#include "tfm/decode/incremental_decoding.hpp"
#include "tfm/model/transformer.hpp"

namespace tfm {

/// The entry of a forcing tensor that lets the model choose the token.
inline constexpr std::int32_t kFreeToken = -1;

/// How a batch is decoded (greedy_decode; beam_search adds its own fields).
struct DecodeOptions {
  /// Tokens to generate per row. 0 = as many as `forced` has columns, or, without forcing, the
  /// model's config().tgt_len. At most config().max_len: step t needs position t of the table.
  std::size_t max_steps = 0;
  /// A row that emits `<eos>` is finished: it emits `<pad>` from then on (forced tokens
  /// included), and decoding stops early once every row is finished. Off: `<eos>` is a token
  /// like any other.
  bool stop_at_eos = true;
  /// Key/value cache (fast), or re-run the decoder on the whole prefix every step (the
  /// readable reference; quadratic in the length).
  bool cached = true;
  /// Empty, or `[B, max_steps]` target ids: kFreeToken (-1) lets the model choose at that step,
  /// any other id is emitted as is (its logits are still computed and reported).
  TokenIds forced;
  /// Empty = any id may be chosen; else the model chooses only among these ids at its free
  /// steps (e.g. vowel_ids() of vowel_restoration.hpp: at the `*` of a vowel-restoration input only vowels).
  std::vector<std::int32_t> free_choices;
};

/// What greedy decoding produced.
struct DecodeResult {
  TokenIds tokens;  ///< `[B, steps]`: the generated tokens, `<bos>` not included
  Tensor3 logits;   ///< `[B, steps, V]`: the logits each step computed, before forcing or choosing
  /// Steps run: max_steps, or fewer if every row emitted `<eos>`.
  std::size_t steps() const { return tokens.shape(1); }
};

/// Greedy decoding: src `[B, S]` -> at every step the highest-scoring allowed token of each row
/// (ties go to the smallest id). Runs the model with dropout off and restores its mode after.
/// Throws std::invalid_argument (ShapeError for shapes) naming the problem for an empty src, a
/// source id outside the source vocabulary, max_steps beyond the positional table, or a
/// forcing tensor / choice list that does not fit.
DecodeResult greedy_decode(Transformer& model, const TokenIds& src,
                           const DecodeOptions& options = {});

/// Checks what every decoder reads (src, max_steps, forced, free_choices; `who` names the caller
/// in the messages) and returns the number of steps to run (max_steps with its 0 resolved).
std::size_t check_decode_options(const Transformer& model, const TokenIds& src,
                                 const DecodeOptions& options, const char* who);

/// The decoder's inputs when it emitted `tokens` `[B, T]`: `<bos>` followed by tokens[:, :-1],
/// `[B, T]` — what teacher forcing feeds to score (or draw the attention of) a decoded output.
TokenIds shifted_right(const TokenIds& tokens);

/// Switches a model to evaluation mode (dropout off) for the lifetime of the object and restores
/// the previous mode after.
class EvaluationMode {
 public:
  /// Remembers whether `model` is training, then switches its dropout off.
  explicit EvaluationMode(Transformer& model) : model_(model), was_training_(model.training()) {
    model_.set_training(false);
  }
  ~EvaluationMode() { model_.set_training(was_training_); }
  EvaluationMode(const EvaluationMode&) = delete;
  EvaluationMode& operator=(const EvaluationMode&) = delete;

 private:
  Transformer& model_;
  bool was_training_;
};

}  // namespace tfm
