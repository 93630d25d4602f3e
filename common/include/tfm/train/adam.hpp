/// \file adam.hpp
/// \brief Chapter 11: the Adam optimizer, with `torch.optim.Adam`'s update rule (bias correction included).
///
/// For every parameter entry, with gradient \f$ g \f$ at step \f$ t \f$ (counted from 1):
/// \f[ m \leftarrow \beta_1 m + (1-\beta_1) g, \qquad v \leftarrow \beta_2 v + (1-\beta_2) g^2, \f]
/// \f[ \theta \leftarrow \theta - \frac{\mathrm{lr}}{1-\beta_1^t}
///     \cdot \frac{m}{\sqrt{v}/\sqrt{1-\beta_2^t} + \epsilon}. \f]
/// \f$ m \f$ and \f$ v \f$ start at zero, so early on they underestimate the gradient's mean
/// and mean square; the two divisions by \f$ 1-\beta^t \f$ undo exactly that bias.
#pragma once

#include <cstddef>
#include <vector>

#include "tfm/core/parameter.hpp"

namespace tfm {

/// Adam's constants. The defaults are PyTorch's; `paper()` gives the Transformer paper's.
struct AdamOptions {
  float beta1 = 0.9f;         ///< decay of the first moment (mean of g)
  float beta2 = 0.999f;       ///< decay of the second moment (mean of g²)
  float eps = 1e-8f;          ///< added to √v̂, keeps the step finite where v̂ ≈ 0
  float weight_decay = 0.0f;  ///< L2 penalty added to the gradient (torch.optim.Adam, not AdamW)

  /// `torch.optim.Adam`'s defaults: β = (0.9, 0.999), ε = 1e-8.
  static AdamOptions pytorch_defaults() { return {}; }
  /// "Attention Is All You Need", §5.3: β = (0.9, 0.98), ε = 1e-9.
  static AdamOptions paper() { return {0.9f, 0.98f, 1e-9f, 0.0f}; }
};

/// Adam over every parameter of a ParameterList.
///
/// The optimizer keeps the list's pointers into the parameters' tensors: the model must
/// outlive it and must not reallocate its parameters (the layers never do after construction).
/// To overwrite a value or gradient from outside, write into it (`xt::noalias(p.grad) = g`,
/// `std::copy`); `p.grad = g` may swap in a new buffer that the optimizer never sees.
class Adam {
 public:
  /// Zeroed moments for every parameter in `params`, in registration order. Rejects (with
  /// std::invalid_argument) the settings torch.optim.Adam rejects: β outside [0, 1), ε < 0.
  Adam(const ParameterList& params, AdamOptions options = {});

  /// One update of every registered parameter from its current `grad`.
  void step(float learning_rate);
  /// How many updates have been made (the t of the bias correction).
  std::size_t steps_taken() const { return steps_; }
  /// The constants given to the constructor (to save with a checkpoint, or print).
  const AdamOptions& options() const { return options_; }

  /// The moments m (first) and v (second) of parameter `index` (registration order), flat, as
  /// many entries as the parameter has; for checkpoints and for the tests against PyTorch.
  ///@{
  const std::vector<float>& first_moment(std::size_t index) const;
  const std::vector<float>& second_moment(std::size_t index) const;
  ///@}
  /// Restores a saved optimizer state, so that training resumes exactly where it stopped:
  /// `first[i]` and `second[i]` for parameter i in registration order. Throws naming the
  /// parameter if a count or size does not match.
  void restore(std::size_t steps, std::vector<std::vector<float>> first,
               std::vector<std::vector<float>> second);

 private:
  // The trace of a step: what was updated, and the size of the largest tensor's update.
  void trace_update(float step_size, float inv_sqrt_correction2) const;

  ParameterList params_;
  AdamOptions options_;
  std::size_t steps_ = 0;
  std::vector<std::vector<float>> m_, v_;  // one per parameter, registration order
};

}  // namespace tfm
