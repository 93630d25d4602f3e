/// \file transformer.hpp
/// \brief Chapter 10: the whole encoder–decoder Transformer, from token ids to logits and back.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "tfm/layers/embedding.hpp"
#include "tfm/layers/linear.hpp"
#include "tfm/layers/mask.hpp"
#include "tfm/model/config.hpp"
#include "tfm/model/decoder.hpp"
#include "tfm/model/encoder.hpp"

namespace tfm {

/// The masks one batch needs, built from its token ids.
struct BatchMasks {
  Mask source;  ///< `[B, S, S]`: encoder self-attention, padding of the source
  Mask target;  ///< `[B, T, T]`: decoder self-attention, padding AND subsequent
  Mask cross;   ///< `[B, T, S]`: cross-attention, padding of the source
};

/// The three masks of a batch: src `[B, S]`, tgt_in `[B, T]`.
BatchMasks make_masks(const TokenIds& src, const TokenIds& tgt_in);

/// Encoder + decoder + output projection to the target vocabulary.
///
/// Parameter names follow the module tree as a PyTorch `state_dict` would:
/// `encoder.layers.0.self_attn.w_q.weight`, `decoder.layers.1.norm3.bias`, `generator.weight`;
/// the embedding is `embedding.weight` when shared, else `src_embedding.weight` and
/// `tgt_embedding.weight`.
class Transformer {
 private:
  // Declared first: members are built in declaration order, and every weight below draws from rng_.
  Config config_;
  Rng rng_;

 public:
  /// Builds every weight from `seed` (same seed, same model).
  Transformer(const Config& config, std::uint64_t seed);
  Transformer(const Transformer&) = delete;  // the stacks point at the embeddings owned here
  Transformer& operator=(const Transformer&) = delete;

  /// src `[B, S]`, tgt_in `[B, T]` -> logits `[B, T, tgt_vocab]`.
  Tensor3 forward(const TokenIds& src, const TokenIds& tgt_in);
  /// grad_logits `[B, T, tgt_vocab]` -> accumulates the gradient of every parameter.
  void backward(const Tensor3& grad_logits);

  /// Dropout on in training, off in evaluation.
  void set_training(bool on);
  /// Calls `visit` on every Dropout inside, always in the same order (the one walk that
  /// set_training and resume_training use).
  void for_each_dropout(const std::function<void(Dropout&)>& visit);
  /// Is dropout on (in the decoder)?
  bool training() const { return decoder.training(); }
  /// Registers every parameter under its state_dict name.
  void collect_parameters(ParameterList& list);
  /// The configuration the model was built from.
  const Config& config() const { return config_; }
  /// The masks the last forward built.
  const BatchMasks& masks() const { return masks_; }

  Embedding src_embedding;                 ///< the source table (the only one when shared)
  std::optional<Embedding> tgt_embedding;  ///< the target table; absent when shared
  Encoder encoder;                         ///< N encoder layers
  Decoder decoder;                         ///< N decoder layers
  Linear generator;                        ///< d_model -> tgt_vocab logits

 private:
  BatchMasks masks_;  // the last forward's masks (kept for inspection, e.g. heat maps)
};

}  // namespace tfm
