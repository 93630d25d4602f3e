/// \file incremental_decoding.hpp
/// \brief Chapter 11: incremental decoding — the decoder run one new position at a time, with a
/// key/value cache, and the whole-prefix decoder it is checked against.
///
/// Step t feeds the token at position t (`<bos>` at 0) and returns the logits of position t + 1.
/// Re-running the decoder on the whole prefix costs t + 1 positions per step; a *step* feeds the
/// newest position only. It runs the decoder's own forward (Decoder::forward with a cache): Add
/// & Norm and the feed-forward network work position by position, so only attention needs the
/// past, and every attention keeps the keys and values it has computed in a KeyValueCache
/// (self-attention appends one position per step; cross-attention projects the encoder output
/// once, at step 0). The result equals the whole-prefix decoder at its last position (the tests
/// check it, to 1e-5). This file holds the bookkeeping around it: the tokens fed, the masks,
/// and the rows beam search keeps.
///
/// Every function here is inference: it runs the layers' forward passes under NoGrad, so decoding
/// never overwrites what the last training forward kept for backward.
#pragma once

#include <cstddef>
#include <vector>

#include "tfm/core/tensor.hpp"
#include "tfm/layers/key_value_cache.hpp"
#include "tfm/model/decoder.hpp"
#include "tfm/model/decoder_layer.hpp"
#include "tfm/model/transformer.hpp"

namespace tfm {

/// Keeps row `rows[i]` of the batch as row i (beam search: each beam continues its parent's
/// keys and values). Any row may be taken several times; an empty cache stays empty.
void select_rows(KeyValueCache& cache, const std::vector<std::size_t>& rows);

/// Everything the decoder stack remembers between steps.
struct DecoderCache {
  std::vector<DecoderLayerCache> layers;  ///< one per decoder layer (created by the first step)
  TokenIds tokens;  ///< `[B, t]`: every token fed so far, `<bos>` first (for the padding mask)

  /// Positions fed so far, t: the position the next token will get.
  std::size_t length() const { return tokens.shape(1); }
  /// Keeps row `rows[i]` of the batch as row i, in every layer (beam search: each beam continues
  /// its parent's cache).
  void select_rows(const std::vector<std::size_t>& rows);
};

/// One step of the whole model's decoder side (call set_training(false) first): src `[B, S]`
/// (only its padding is read), memory `[B, S, d_model]`, last `[B, 1]` (the token at
/// `position`, `<bos>` at 0) -> logits `[B, 1, tgt_vocab]` for the token at position + 1.
///
/// The token gets the positional encoding of its TRUE position, `position` (reference 002 gave
/// every new token position 0). `position` must equal cache.length(): step t feeds the token at
/// position t.
Tensor3 next_token_logits(Transformer& model, const TokenIds& src, const Tensor3& memory,
                          const TokenIds& last, std::size_t position, DecoderCache& cache);

/// Decoding, part 1: src `[B, S]` -> memory `[B, S, d_model]`, the encoder alone (with the
/// source's padding mask). Computed once per batch; every step reads it.
Tensor3 encode(Transformer& model, const TokenIds& src);

/// The decoder without a cache: src `[B, S]` (only its padding is read), memory = encode(src),
/// tgt_in `[B, T]` -> logits `[B, T, tgt_vocab]`, equal to model.forward(src, tgt_in). Re-running
/// it on the whole prefix at every step is the readable reference that next_token_logits() is checked against.
Tensor3 decoder_logits(Transformer& model, const TokenIds& src, const Tensor3& memory,
                       const TokenIds& tgt_in);

/// The decoder side of decoding, one token at a time, with the cache or re-running decoder_logits() on
/// the whole prefix: what greedy decoding and beam search share. The source is encoded once, by
/// the constructor. The model must be in evaluation mode (see EvaluationMode).
class IncrementalDecoder {
 public:
  /// src `[B, S]`; `cached` chooses the key/value cache or the whole-prefix reference.
  IncrementalDecoder(Transformer& model, const TokenIds& src, bool cached);

  /// last `[B, 1]`: the token at position(), `<bos>` first -> logits `[B, 1, V]` of the next
  /// position.
  Tensor3 next_logits(const TokenIds& last);
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

}  // namespace tfm
