/// \file incremental_decoding.hpp
/// \brief Chapter 11: incremental decoding — the decoder run one new position at a time, with a
/// key/value cache, and the whole-prefix decoder it is checked against.
///
/// Step t feeds the token at position t (`<bos>` at 0) and returns the logits of position t + 1.
/// Re-running the decoder on the whole prefix costs t + 1 positions per step; a *step* feeds the
/// newest position only. Add & Norm and the feed-forward network work position by position, so
/// only attention needs the past: every attention keeps the keys and values it has computed in a
/// KeyValueCache (self-attention appends one position per step; cross-attention projects the
/// encoder output once, at step 0). The result equals the whole-prefix decoder at its last
/// position (the tests check it, to 1e-5).
///
/// Every function here is inference: it runs the layers' forward passes under NoGrad, so decoding
/// never overwrites what the last training forward kept for backward.
#pragma once

#include <cstddef>
#include <vector>

#include "tfm/core/tensor.hpp"
#include "tfm/layers/multi_head_attention.hpp"
#include "tfm/model/decoder.hpp"
#include "tfm/model/decoder_layer.hpp"
#include "tfm/model/transformer.hpp"

namespace tfm {

/// The keys and values one attention has computed so far, kept per head so that
/// ScaledDotProductAttention reads them as they are.
struct KeyValueCache {
  Tensor4 keys;    ///< `[B, H, L, d_k]`: W_K of every memory row seen so far, split into heads
  Tensor4 values;  ///< `[B, H, L, d_v]`: W_V likewise

  /// Number of cached positions, L (0 before the first step).
  std::size_t length() const { return keys.shape(2); }
  /// Nothing cached yet?
  bool empty() const { return keys.size() == 0; }
  /// keys `[B, H, n, d_k]`, values `[B, H, n, d_v]` of n new positions -> appended after the
  /// cached ones: `[B, H, L + n, d_k]`. Throws ShapeError if the batch, heads or widths differ.
  void append(const Tensor4& new_keys, const Tensor4& new_values);
  /// Keeps row `rows[i]` of the batch as row i (beam search: each beam continues its parent's
  /// keys and values). Any row may be taken several times; an empty cache stays empty.
  void select_rows(const std::vector<std::size_t>& rows);
};

/// What one decoder layer remembers between steps.
struct DecoderLayerCache {
  KeyValueCache self_attn;   ///< every target position fed so far; one more per step
  KeyValueCache cross_attn;  ///< the encoder output, projected once at the first step
};

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

/// One step of multi-head attention: query_input `[B, 1, d_model]` (the newest position),
/// new_memory `[B, n, d_model]` or nullptr, mask `[B, 1, L]` or nullptr -> `[B, 1, d_model]`.
///
/// Only new_memory is projected by W_K and W_V, and its keys and values are appended to `cache`
/// (L = cached + n positions); the query then attends to everything in the cache. Self-attention
/// passes the new position itself as new_memory; cross-attention passes the encoder output at
/// the first step and nullptr after. (A query of several positions is allowed; the mask,
/// `[B, Lq, L]`, must then say which cached positions each may see.)
Tensor3 cached_attention(MultiHeadAttention& attention, const Tensor3& query_input,
                         const Tensor3* new_memory, KeyValueCache& cache,
                         const Mask* mask = nullptr);

/// One step of a decoder layer: x `[B, 1, d]` (the newest position), memory `[B, S, d]` (read
/// only while cache.cross_attn is empty, i.e. at the first step), self_mask `[B, 1, t + 1]` (which
/// of the fed positions, this one included, may be seen), cross_mask `[B, 1, S]` -> `[B, 1, d]`.
Tensor3 cached_decoder_layer(DecoderLayer& layer, const Tensor3& x, const Tensor3& memory,
                             const Mask* self_mask, const Mask* cross_mask,
                             DecoderLayerCache& cache);

/// One step of the decoder stack (call set_training(false) first): last `[B, 1]` (the token fed
/// at `position`, `<bos>` at 0), memory `[B, S, d]`, cross_mask `[B, 1, S]` -> hidden state of
/// that position `[B, 1, d]`.
///
/// The token gets the positional encoding of its TRUE position, `position` (reference 002 gave
/// every new token position 0). `position` must equal cache.length(): step t feeds the token at
/// position t.
Tensor3 cached_decoder(Decoder& decoder, const TokenIds& last, std::size_t position,
                       const Tensor3& memory, const Mask* cross_mask, DecoderCache& cache);

/// One step of the whole model's decoder side: src `[B, S]` (only its padding is read), memory
/// `[B, S, d_model]`, last `[B, 1]` (the token at `position`) -> logits `[B, 1, tgt_vocab]` for
/// the token at position + 1.
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
