/// \file feed_forward.hpp
/// \brief Chapter 07: the position-wise feed-forward network, forward and backward.
///
/// \f[ \mathrm{FFN}(x) = \max(0,\; x W_1 + b_1)\, W_2 + b_2 \f]
/// applied to every position separately and identically: the same two matrices for every
/// token, no information flows between positions (that is attention's job).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "tfm/core/parameter.hpp"
#include "tfm/core/random.hpp"
#include "tfm/core/tensor.hpp"
#include "tfm/layers/dropout.hpp"
#include "tfm/layers/linear.hpp"
#include "tfm/layers/relu.hpp"

namespace tfm {

/// Reference 000's `FeedForward`: Linear(d_model, d_ff) -> ReLU -> Dropout -> Linear(d_ff,
/// d_model).
class FeedForward {
 public:
  /// `bias`: 000 and 002 have biases, 001 (nlp-tutorial) does not. `dropout` is the probability
  /// of dropping a hidden unit during training; its masks come from `dropout_seed`. The weights
  /// are drawn from `rng`, linear1 first.
  FeedForward(std::size_t d_model, std::size_t d_ff, bool bias, float dropout,
              std::uint64_t dropout_seed, Rng& rng);

  /// x `[B, L, d_model]` -> `[B, L, d_model]`, through a hidden layer `[B, L, d_ff]`.
  Tensor3 forward(const Tensor3& x);
  /// grad_output `[B, L, d_model]` -> grad_x `[B, L, d_model]`; accumulates the gradients of both
  /// linears.
  Tensor3 backward(const Tensor3& grad_output);

  /// Training (random dropout masks) or evaluation (dropout is the identity).
  void set_training(bool on) { dropout_.set_training(on); }
  /// Calls `visit` on its Dropout (see Transformer::for_each_dropout).
  void for_each_dropout(const std::function<void(Dropout&)>& visit) { visit(dropout_); }
  /// Is dropout active?
  bool training() const { return dropout_.training(); }

  /// Registers `linear1` and `linear2` (each `.weight` and, with bias, `.bias`).
  void collect_parameters(ParameterList& list);

  /// Width of the inputs and of the output.
  std::size_t d_model() const { return linear1.in_features(); }
  /// Width of the hidden layer.
  std::size_t d_ff() const { return linear1.out_features(); }
  /// The dropout mask of the last training forward, `[B, L, d_ff]` (1 = kept, 0 = dropped).
  const ByteTensor3& dropout_mask() const { return dropout_.mask(); }

  Linear linear1;  ///< W_1: `[d_ff, d_model]`, widens every position to d_ff
  Linear linear2;  ///< W_2: `[d_model, d_ff]`, back to d_model

 private:
  ReLU relu_;
  Dropout dropout_;
};

}  // namespace tfm
