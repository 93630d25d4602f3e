// Small helpers shared by the tests of the layers, the stacks and the whole model (chapters 08-10).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "gradient_check.hpp"
#include "tfm/core/parameter.hpp"
#include "tfm/core/random.hpp"
#include "tfm/core/tensor.hpp"
#include "tfm/layers/feed_forward.hpp"
#include "tfm/layers/layer_norm.hpp"
#include "tfm/layers/mask.hpp"
#include "tfm/machinery/npy.hpp"
#include "tfm/model/config.hpp"

namespace tfm::testing {

/// The tiny preset (d_model 16, 2 heads, 2 + 2 layers, d_ff 32, vocabularies of 16) with the
/// given dropout probability: 0 for exact comparisons, > 0 to test that dropout is wired in.
inline Config tiny_with_dropout(float dropout) {
  Config c = preset("tiny");
  c.dropout = dropout;
  return c;
}

/// Token ids `[B, len]` drawn uniformly from [1, vocab) (never padding), then sentence b ends in
/// `pads[b]` padding tokens (id 0).
inline TokenIds padded_ids(std::size_t len, std::size_t vocab, const std::vector<std::size_t>& pads,
                           Rng& rng) {
  TokenIds ids = TokenIds::from_shape({pads.size(), len});
  for (std::size_t b = 0; b < pads.size(); ++b)
    for (std::size_t j = 0; j < len; ++j)
      ids(b, j) = j + pads[b] >= len ? kPadId : static_cast<std::int32_t>(1 + rng.below(vocab - 1));
  return ids;
}

/// Bit-for-bit equality of two tensors (xtensor's == does not compile inside Catch's CHECK).
template <class A, class B>
bool same(const A& a, const B& b) {
  return a.shape() == b.shape() && a == b;
}

/// Moves every LayerNorm of `params` (names containing "norm") away from weight 1, bias 0, to
/// weights in [0.5, 1.5) and biases in [-0.2, 0.2), so that their gradients are tested for real.
inline void randomise_norms(const ParameterList& params, Rng& rng) {
  for (const ParameterRef& p : params) {
    if (p.name.find("norm") == std::string::npos) continue;
    const bool weight = p.name.size() >= 6 && p.name.compare(p.name.size() - 6, 6, "weight") == 0;
    for (std::size_t i = 0; i < p.size; ++i)
      p.value[i] = weight ? rng.uniform(0.5f, 1.5f) : rng.uniform(-0.2f, 0.2f);
  }
}

/// Keeps every hidden pre-activation of `ffn` at least 1 away from the ReLU's kink at 0, for
/// finite-difference checks: a nudge that moves a unit across the kink makes the difference
/// quotient meaningless (measured: ~100 of the 2,224 entries of one encoder layer off by more
/// than 1 %, some by 600 %).
///
/// The FFN's input x is the output of `input_norm`, so ||x|| <= max|w| sqrt(d) + ||b|| (a
/// normalised row has norm at most sqrt(d)), and |a_j - b1_j| = |W1_j . x| <= ||W1_j|| ||x||,
/// whatever the layer's input. Setting b1_j = +-(that bound + 1), alternately, puts half of the
/// units always on and half always off: both branches of the ReLU are still tested (an "off"
/// unit must pass no gradient at all), and a nudge h of one entry moves a_j by at most
/// h ||x|| (through W1), h sqrt(d) ||W1_j|| (through the norm's weight) or h (through b1):
/// under 0.3 for the tiny sizes and h <= 4e-2, so no unit can switch.
inline void keep_relu_clear_of_kinks(FeedForward& ffn, const LayerNorm& input_norm) {
  double max_weight = 0.0, bias_sq = 0.0;
  for (float w : input_norm.weight.value) max_weight = std::max(max_weight, double(std::abs(w)));
  for (float b : input_norm.bias.value) bias_sq += double(b) * b;
  const double x_norm = max_weight * std::sqrt(double(input_norm.d_model())) + std::sqrt(bias_sq);
  const Tensor2& W1 = ffn.linear1.weight.value;  // [d_ff, d_model]
  double max_row = 0.0;
  for (std::size_t j = 0; j < W1.shape(0); ++j) {
    double row_sq = 0.0;
    for (std::size_t k = 0; k < W1.shape(1); ++k) row_sq += double(W1(j, k)) * W1(j, k);
    max_row = std::max(max_row, std::sqrt(row_sq));
  }
  const float offset = static_cast<float>(max_row * x_norm + 1.0);
  for (std::size_t j = 0; j < ffn.linear1.bias.value.size(); ++j)
    ffn.linear1.bias.value(j) = j % 2 == 0 ? offset : -offset;
}

/// Like check_gradient (gradient_check.hpp), with the central difference extrapolated to step 0.
///
/// The central difference D(h) = (L(p + h) - L(p - h)) / 2h errs by c h^2 + O(h^4) (truncation)
/// plus ~(float32 rounding of L) / h. Deep in a float32 model both matter: a step small enough
/// to make c h^2 negligible where attention is sharp (measured: 25 % error at h = 4e-2 on one
/// decoder query weight) makes the rounding term dominate everywhere else. Richardson's
/// extrapolation (4 D(eps/2) - D(eps)) / 3 cancels the h^2 term, so the step can stay large
/// (eps = 4e-2) and the rounding small; it costs four forward passes per entry instead of two.
inline GradientReport check_gradient_extrapolated(float* values, const float* analytic,
                                                  std::size_t n,
                                                  const std::function<double()>& loss, float eps,
                                                  double atol, std::size_t stride = 1) {
  GradientReport report;
  for (std::size_t i = 0; i < n; i += stride) {
    const float saved = values[i];
    auto central = [&](float h) {
      values[i] = saved + h;
      const double plus = loss();
      values[i] = saved - h;
      const double minus = loss();
      values[i] = saved;
      return (plus - minus) / (2.0 * static_cast<double>(h));
    };
    const double coarse = central(eps), fine = central(eps / 2);
    const double numeric = (4.0 * fine - coarse) / 3.0;
    const double score = std::abs(analytic[i] - numeric) / (atol + std::abs(numeric));
    if (score > report.worst) report = {score, i, analytic[i], numeric};
  }
  return report;
}

/// Copies `tests/fixtures/<prefix><name>.npy` into every parameter of `params`, by name.
inline void load_parameters(const ParameterList& params, const std::string& prefix) {
  for (const ParameterRef& p : params) {
    const NpyArray saved = load_npy_file(fixture_path(prefix + p.name + ".npy"));
    if (saved.shape != p.shape)
      throw std::runtime_error("fixture " + prefix + p.name + " has shape " +
                               shape_string(saved.shape) + ", the parameter " +
                               shape_string(p.shape));
    std::copy(saved.values.begin(), saved.values.end(), p.value);
  }
}

/// The worst |ours - PyTorch| / (atol + |PyTorch|) over every parameter gradient of `params`
/// against `tests/fixtures/<prefix><name>.npy`, with atol = 1e-3 of the largest reference entry:
/// relative where gradients are large, absolute (1e-7 of the scale) where they are zero in exact
/// arithmetic (the key biases: a softmax ignores a shift shared by its whole row). `worst_name`
/// receives the parameter it was found in.
inline double parameter_gradient_error(const ParameterList& params, const std::string& prefix,
                                       std::string& worst_name) {
  std::vector<NpyArray> reference;
  double scale = 0.0;
  for (const ParameterRef& p : params) {
    reference.push_back(load_npy_file(fixture_path(prefix + p.name + ".npy")));
    for (float g : reference.back().values) scale = std::max(scale, double(std::abs(g)));
  }
  double worst = 0.0;
  for (std::size_t k = 0; k < params.size(); ++k) {
    const ParameterRef& p = params.refs()[k];
    for (std::size_t i = 0; i < p.size; ++i) {
      const double theirs = reference[k].values[i];
      const double err = std::abs(p.grad[i] - theirs) / (1e-3 * scale + std::abs(theirs));
      if (err > worst) worst = err, worst_name = p.name;
    }
  }
  return worst;
}

}  // namespace tfm::testing
