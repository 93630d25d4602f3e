/// \file no_grad.hpp
/// \brief Chapter 11: `torch.no_grad()`: forward passes that keep nothing for backward.
///
/// Every layer's forward keeps exactly what its backward needs (its input, a mask, the attention
/// weights). Inference needs none of it, and must not overwrite what the last training forward
/// kept: while a NoGrad object lives, every forward computes its output and keeps nothing, so a
/// backward after it still sees the last forward that ran with gradients on.
///
/// \code
/// tfm::NoGrad no_grad;                     // with torch.no_grad():
/// const Tensor3 memory = encoder.forward(src, &src_mask);
/// \endcode
#pragma once

namespace tfm {

/// Do forward passes keep what backward needs? True unless a NoGrad object lives.
bool grad_enabled();

/// Switches gradients off for the lifetime of the object (nestable); restores the setting after.
class NoGrad {
 public:
  /// Remembers the current setting and switches gradients off.
  NoGrad();
  /// Puts the remembered setting back.
  ~NoGrad();
  NoGrad(const NoGrad&) = delete;
  NoGrad& operator=(const NoGrad&) = delete;

 private:
  bool previous_;
};

}  // namespace tfm
