/// \file gradient_clipping.hpp
/// \brief Chapter 11: gradient-norm clipping (`torch.nn.utils.clip_grad_norm_`) and a non-finite gradient guard.
///
/// All gradients are treated as one long vector. If its L2 norm exceeds `max_norm`, every
/// gradient is scaled by the same factor \f$ \mathrm{max\_norm} / (\lVert g \rVert + 10^{-6}) \f$:
/// the direction of the step is kept, only its length is capped, so one unlucky batch cannot
/// throw the parameters far away (reference 002 clips at 1.0).
#pragma once

#include <optional>
#include <string>

#include "tfm/core/parameter.hpp"

namespace tfm {

/// Scales all gradients of `params` so that their total L2 norm is at most `max_norm`
/// (exactly PyTorch's rule) and returns the norm *before* clipping.
///
/// If that norm is not finite (a NaN or Inf somewhere) the gradients are left untouched and
/// the non-finite norm is returned, so that the caller can skip the step; PyTorch would instead
/// multiply everything by NaN or 0. `first_non_finite_gradient` says which parameter it was.
float clip_grad_norm(const ParameterList& params, float max_norm);

/// The total L2 norm of all gradients of `params`, without changing them.
float gradient_norm(const ParameterList& params);

/// The name of the first parameter (registration order) with a NaN or Inf in its gradient,
/// or nothing if every gradient is finite: the training loop's guard before an optimizer step.
std::optional<std::string> first_non_finite_gradient(const ParameterList& params);

}  // namespace tfm
