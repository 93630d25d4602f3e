/// \file decoder.hpp
/// \brief Chapter 09: the decoder stack — embed the shifted target, add positions, then N
/// decoder layers that read the encoder's output.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "tfm/layers/dropout.hpp"
#include "tfm/layers/embedding.hpp"
#include "tfm/layers/positional_encoding.hpp"
#include "tfm/model/config.hpp"
#include "tfm/model/decoder_layer.hpp"

namespace tfm {

/// `h = Layers(Dropout(Embed(tgt_in) * sqrt(d_model) + PE), memory)`.
class Decoder {
 public:
  /// `embedding` is owned by the caller (the Transformer), which may share it with the encoder.
  Decoder(const Config& config, Embedding& embedding, Rng& rng);

  /// tgt_in `[B, T]` (starts with `<bos>`), memory `[B, S, d]`, self_mask `[B, T, T]`,
  /// cross_mask `[B, T, S]` -> hidden states `[B, T, d]`.
  ///
  /// Decoding (chapter 11, inference only) passes `cache`, one per layer (empty before the first
  /// step): tgt_in then holds only the T tokens after the t cached positions, they get the
  /// positions t .. t + T - 1, and self_mask `[B, T, t + T]` covers every position fed so far.
  Tensor3 forward(const TokenIds& tgt_in, const Tensor3& memory, const Mask* self_mask,
                  const Mask* cross_mask, std::vector<DecoderLayerCache>* cache = nullptr);
  /// grad_hidden `[B, T, d]` -> grad_memory `[B, S, d]` (summed over the layers); accumulates the
  /// gradients of every layer and of the embedding table.
  Tensor3 backward(const Tensor3& grad_hidden);

  /// Dropout on in training, off in evaluation.
  void set_training(bool on);
  /// Calls `visit` on every Dropout inside, always in the same order (the one walk that
  /// set_training and resume_training use).
  void for_each_dropout(const std::function<void(Dropout&)>& visit);
  /// Is dropout on?
  bool training() const { return dropout_.training(); }
  /// `layers.<i>.*` (the embedding is registered by its owner).
  void collect_parameters(ParameterList& list);
  /// The token table the decoder looks its ids up in (owned by the Transformer).
  Embedding& embedding() { return *embedding_; }
  /// The sin/cos table added to the embedded tokens.
  const PositionalEncoding& positional_encoding() const { return positions_; }

  std::vector<DecoderLayer> layers;  ///< N layers, applied in order

 private:
  Embedding* embedding_;
  PositionalEncoding positions_;
  Dropout dropout_;
  TokenIds tgt_in_;  // forward's ids, for the embedding's gradient
};

}  // namespace tfm
