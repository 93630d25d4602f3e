/// \file dropout.hpp
/// \brief Chapter 07: inverted dropout: during training every entry is zeroed with probability p and the
/// survivors are scaled by 1/(1-p), so that evaluation needs no rescaling at all.
#pragma once

#include <cstdint>
#include <functional>

#include "tfm/core/random.hpp"
#include "tfm/core/tensor.hpp"

namespace tfm {

/// `nn.Dropout(p)`. Draws its masks from its own seeded Rng, so a run is reproducible and
/// independent of every other random draw. Starts in training mode, like a PyTorch module.
class Dropout {
 public:
  /// `p` is the probability of dropping an entry, 0 <= p < 1.
  Dropout(float p, std::uint64_t seed);

  /// Training (on): forward draws a random mask. Evaluation (off): forward is the identity.
  void set_training(bool on) { training_ = on; }
  /// Is the module in training mode?
  bool training() const { return training_; }
  /// The probability of dropping an entry.
  float p() const { return p_; }
  /// What forward does now, as a trace names the step: training, or why it is the identity.
  const char* mode() const {
    return !training_   ? "dropout (evaluation: identity)"
           : p_ == 0.0f ? "dropout (p = 0: identity)"
                        : "dropout (training)";
  }

  /// x `[B, L, d]` -> y `[B, L, d]` = x * mask / (1-p), mask entries 0 (dropped) or 1 (kept).
  /// The mask is kept for backward, one byte per entry. Identity in evaluation and when p == 0.
  Tensor3 forward(Tensor3&& x);
  /// The same on a copy of `x` (the overload above works in x's own memory).
  Tensor3 forward(const Tensor3& x) { return forward(Tensor3(x)); }
  /// grad_y `[B, L, d]` -> grad_x `[B, L, d]` = grad_y * (the same mask as forward) / (1-p),
  /// written over grad_y (moved in: no copy, no new memory).
  Tensor3 backward(Tensor3&& grad_y);
  /// The same on a copy of `grad_y`.
  Tensor3 backward(const Tensor3& grad_y) { return backward(Tensor3(grad_y)); }

  /// Moves the generator on past the masks of `forwards` training forwards (one draw each), as
  /// a run resumed from a checkpoint must: its masks are then those the saved run would have
  /// drawn next.
  void skip(std::size_t forwards);

  /// The mask of the last training forward (1 = kept, 0 = dropped); empty if that forward was
  /// the identity.
  const ByteTensor3& mask() const { return mask_; }

 private:
  float p_;
  Rng rng_;
  bool training_ = true;
  bool masked_ = false;          // did the last forward apply a mask?
  ByteTensor3 mask_;             // that mask (empty when the last forward was the identity)
  Tensor3::shape_type shape_{};  // shape of the last forward's input, checked by backward
};

}  // namespace tfm
