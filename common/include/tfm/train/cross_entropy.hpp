/// \file cross_entropy.hpp
/// \brief Chapter 11: the training loss: softmax over the vocabulary and negative log-likelihood, fused.
///
/// For one position with logits \f$ z \in \mathbb{R}^V \f$ and target \f$ t \f$,
/// \f$ \log p_j = z_j - \log \sum_k e^{z_k} \f$ and the loss is \f$ -\log p_t \f$. With label
/// smoothing \f$ \varepsilon \f$ (the paper uses 0.1) the target distribution is
/// \f$ q_j = (1 - \varepsilon)\,[j = t] + \varepsilon / V \f$ and the loss
/// \f$ -\sum_j q_j \log p_j \f$. The batch loss is the mean over the positions whose target
/// is not padding. This is exactly PyTorch's
/// `F.cross_entropy(logits, targets, ignore_index=pad, label_smoothing=ε, reduction='mean')`.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tfm/core/tensor.hpp"
#include "tfm/layers/mask.hpp"

namespace tfm {

/// Cross-entropy with padding ignored and optional label smoothing.
///
/// A batch whose targets are all padding has nothing to learn from: forward returns 0,
/// `counted_tokens()` is 0 and backward is all zeros. (PyTorch 1.13 gives the same zero
/// gradient but a NaN loss, the mean's 0/0, which would trip a training loop's NaN guard and
/// spoil a running average of the loss; a loss of 0 is the sum over no tokens.)
class CrossEntropy {
 public:
  /// Targets equal to `ignore_id` count neither in the loss nor in the mean's denominator.
  /// `label_smoothing` ε in [0, 1].
  explicit CrossEntropy(std::int32_t ignore_id = kPadId, float label_smoothing = 0.0f);

  /// logits `[B, T, V]`, targets `[B, T]` -> mean loss over the counted (non-ignored) tokens.
  /// Every counted target must lie in [0, V). Keeps the probabilities for backward.
  float forward(const Tensor3& logits, const TokenIds& targets);
  /// d loss / d logits `[B, T, V]` = (softmax - q) / counted_tokens, 0 on ignored positions.
  Tensor3 backward() const;

  /// How many positions the last forward averaged over.
  std::size_t counted_tokens() const { return counted_; }
  /// The settings given to the constructor: the target id that is not counted, and ε.
  ///@{
  std::int32_t ignore_id() const { return ignore_id_; }
  float label_smoothing() const { return smoothing_; }
  ///@}

 private:
  std::int32_t ignore_id_;
  float smoothing_;
  Tensor3 probs_;     // forward's softmax of the logits, [B, T, V]
  TokenIds targets_;  // forward's targets, [B, T]
  std::size_t counted_ = 0;
  bool has_forward_ = false;
};

}  // namespace tfm
