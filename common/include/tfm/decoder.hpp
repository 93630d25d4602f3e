/// \file decoder.hpp
/// \brief Chapter 09: the decoder stack — embed the shifted target, add positions, then N
/// decoder layers that read the encoder's output.
#pragma once

#include <functional>
#include <vector>

#include "tfm/config.hpp"
#include "tfm/decoder_layer.hpp"
#include "tfm/dropout.hpp"
#include "tfm/embedding.hpp"
#include "tfm/positional_encoding.hpp"

namespace tfm {

/// Everything incremental decoding keeps between steps, for the whole stack.
struct DecoderCache {
  std::vector<DecoderLayerCache> layers;  ///< one per decoder layer (created by the first step)
  TokenIds tokens;  ///< `[B, t]`: every token fed so far, `<bos>` first (for the padding mask)

  /// Positions fed so far, t: the position the next token will get.
  std::size_t length() const { return tokens.shape(1); }
  /// Keeps row `rows[i]` of the batch as row i, in every layer (beam search: each beam continues
  /// its parent's cache).
  void select_rows(const std::vector<std::size_t>& rows);
};

/// `h = Layers(Dropout(Embed(tgt_in) * sqrt(d_model) + PE), memory)`.
class Decoder {
 public:
  /// `embedding` is owned by the caller (the Transformer), which may share it with the encoder.
  Decoder(const Config& config, Embedding& embedding, Rng& rng);

  /// tgt_in `[B, T]` (starts with `<bos>`), memory `[B, S, d]`, self_mask `[B, T, T]`,
  /// cross_mask `[B, T, S]` -> hidden states `[B, T, d]`.
  Tensor3 forward(const TokenIds& tgt_in, const Tensor3& memory, const Mask* self_mask,
                  const Mask* cross_mask);
  /// Incremental decoding, one step, for inference (call set_training(false) first; there is no
  /// backward): last `[B, 1]` (the token fed at `position`, `<bos>` at 0), memory `[B, S, d]`,
  /// cross_mask `[B, 1, S]` -> hidden state of that position `[B, 1, d]`.
  ///
  /// The token gets the positional encoding of its TRUE position, `position` (reference 002
  /// gave every new token position 0). `position` must equal cache.length(): step t feeds the
  /// token at position t. memory is read at the first step only (the cross-attention caches its
  /// projection). The result equals forward() on the whole prefix, at its last position.
  Tensor3 forward_step(const TokenIds& last, std::size_t position, const Tensor3& memory,
                       const Mask* cross_mask, DecoderCache& cache);

  /// d_hidden `[B, T, d]` -> d_memory `[B, S, d]` (summed over the layers); accumulates the
  /// gradients of every layer and of the embedding table.
  Tensor3 backward(const Tensor3& d_hidden);

  /// Dropout on in training, off in evaluation.
  void set_training(bool on);
  /// Calls `visit` on every Dropout inside, always in the same order (the one walk that
  /// set_training and resume_training use).
  void for_each_dropout(const std::function<void(Dropout&)>& visit);
  /// Is dropout on?
  bool training() const { return dropout_.training(); }
  /// `layers.<i>.*` (the embedding is registered by its owner).
  void collect_parameters(ParameterList& list);

  std::vector<DecoderLayer> layers;  ///< N layers, applied in order

 private:
  Embedding* embedding_;
  PositionalEncoding positions_;
  Dropout dropout_;
  TokenIds tgt_in_;  // forward's ids, for the embedding's gradient
};

}  // namespace tfm
