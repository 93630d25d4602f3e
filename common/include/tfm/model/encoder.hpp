/// \file encoder.hpp
/// \brief Chapter 09: the encoder stack — embed the source, add positions, then N encoder layers.
#pragma once

#include <functional>
#include <vector>

#include "tfm/layers/dropout.hpp"
#include "tfm/layers/embedding.hpp"
#include "tfm/layers/positional_encoding.hpp"
#include "tfm/model/config.hpp"
#include "tfm/model/encoder_layer.hpp"

namespace tfm {

/// `memory = Layers(Dropout(Embed(src) * sqrt(d_model) + PE))`.
class Encoder {
 public:
  /// `embedding` is owned by the caller (the Transformer), which may share it with the decoder.
  Encoder(const Config& config, Embedding& embedding, Rng& rng);

  /// src `[B, S]` token ids, src_mask `[B, S, S]` -> memory `[B, S, d_model]`.
  Tensor3 forward(const TokenIds& src, const Mask* src_mask);
  /// grad_memory `[B, S, d_model]` -> gradients of every layer and of the embedding table.
  void backward(const Tensor3& grad_memory);

  /// Dropout on in training, off in evaluation.
  void set_training(bool on);
  /// Calls `visit` on every Dropout inside, always in the same order (the one walk that
  /// set_training and resume_training use).
  void for_each_dropout(const std::function<void(Dropout&)>& visit);
  /// `layers.<i>.*` (the embedding is registered by its owner).
  void collect_parameters(ParameterList& list);

  std::vector<EncoderLayer> layers;  ///< N layers, applied in order

 private:
  Embedding* embedding_;
  PositionalEncoding positions_;
  Dropout dropout_;
  TokenIds src_;  // forward's ids, for the embedding's gradient
};

}  // namespace tfm
