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
/// The cached decoder keeps, per layer, the keys and values of every position fed so far
/// (self-attention) and of the encoder output (cross-attention, projected once), so a step
/// costs one position instead of t + 1. Both give the same tokens, and the same logits up to
/// float rounding; the tests check it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tfm/decoder.hpp"
#include "tfm/tensor.hpp"
#include "tfm/transformer.hpp"
#include "tfm/vocabulary.hpp"

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
  /// steps (e.g. vowel_ids(): at the `*` of a vowel-restoration input only vowels).
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

/// The decoder side of decoding, one step at a time, cached or not: what greedy decoding and
/// beam search share. The source is encoded once, by the constructor. Inference only: the model
/// must be in evaluation mode (see EvaluationMode).
class StepDecoder {
 public:
  /// src `[B, S]`; `cached` chooses the key/value cache or the whole-prefix reference.
  StepDecoder(Transformer& model, const TokenIds& src, bool cached);

  /// last `[B, 1]`: the token at position(), `<bos>` first -> logits `[B, 1, V]` of the next
  /// position.
  Tensor3 step(const TokenIds& last);
  /// Keeps row `rows[i]` of everything (source, memory, cache or prefix) as row i: beam search
  /// uses it to make K rows per source, then to let each beam continue its parent.
  void select_rows(const std::vector<std::size_t>& rows);

  /// The position the next fed token gets (tokens fed so far).
  std::size_t position() const { return position_; }
  /// Rows decoded in parallel.
  std::size_t batch() const { return src_.shape(0); }

 private:
  Transformer& model_;
  bool cached_;
  TokenIds src_;        // [B, S]
  Tensor3 memory_;      // [B, S, d_model]: the encoder output, computed once
  DecoderCache cache_;  // cached: every layer's keys and values
  TokenIds prefix_;     // uncached: every token fed so far, [B, position]
  std::size_t position_ = 0;
};

/// Forced tokens for vowel restoration: src `[B, S]` (text with its vowels hidden as `*`, ids
/// of `source_vocabulary`) -> `[B, S]`: kFreeToken where src is `*` or a reserved id (nothing
/// to copy), else the id of the same character in `target_vocabulary`. Every letter and space
/// the input shows is thus kept; the model only fills in the `*`.
TokenIds vowel_forcing(const TokenIds& src, const Vocabulary& source_vocabulary,
                       const Vocabulary& target_vocabulary);
/// The ids of a, e, i, o, u in `vocabulary`: DecodeOptions::free_choices for "at a `*` only a
/// vowel may be chosen".
std::vector<std::int32_t> vowel_ids(const Vocabulary& vocabulary);

}  // namespace tfm
