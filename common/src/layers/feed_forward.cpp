#include "tfm/layers/feed_forward.hpp"

#include <string>
#include <utility>

#include "tfm/core/trace.hpp"

namespace tfm {

namespace {
constexpr const char* kName = "FeedForward";
constexpr trace::Component traced(kName);
constexpr const char* kHidden = "batch, len, d_ff";
constexpr const char* kModel = "batch, len, d_model";
}  // namespace

FeedForward::FeedForward(std::size_t d_model, std::size_t d_ff, bool bias, float dropout,
                         std::uint64_t dropout_seed, Rng& rng)
    : linear1(d_model, d_ff, bias, rng),
      linear2(d_ff, d_model, bias, rng),
      dropout_(dropout, dropout_seed) {}

// [ffn forward]
Tensor3 FeedForward::forward(const Tensor3& x) {
  // x [B, L, d_model] -> h [B, L, d_ff] -> [B, L, d_model]. Every position is one row of a
  // [B*L, d_model] matrix, so "position-wise" costs nothing extra: it is one product per linear.
  require_shape(kName, "input", x, {kAnyExtent, kAnyExtent, linear1.in_features()},
                "(batch, len, d_model)");
  Tensor3 h = traced(linear1.forward(x), "linear1 (widen)", "h", kHidden);
  // ReLU and dropout work in h's memory (moved in and out).
  h = traced(relu_.forward(std::move(h)), "relu", "h", kHidden);
  h = traced(dropout_.forward(std::move(h)), dropout_.mode(), "h", kHidden);
  // linear2 keeps h for its backward: moved in, not copied.
  return traced(linear2.forward(std::move(h)), "linear2 (narrow)", "y", kModel);
}
// [ffn forward]

// [ffn backward]
Tensor3 FeedForward::backward(const Tensor3& grad_output) {
  // grad_output [B, L, d_model] -> grad_x [B, L, d_model], each step's backward in reverse order:
  //   y = h2 W_2ᵀ + b_2         ->  grad_h2 = grad_y W_2  (grad_W_2 += grad_yᵀ h2, grad_b_2)
  //   h2 = h1 * mask / (1 - p)  ->  grad_h1 = grad_h2 * mask / (1 - p)  (the mask of forward)
  //   h1 = max(0, a)            ->  grad_a = grad_h1 where a > 0, else 0
  //   a = x W_1ᵀ + b_1          ->  grad_x = grad_a W_1  (and grad_W_1, grad_b_1)
  // (In the code h is h1 and h2 both, as in forward, and grad_h its gradient.)
  Tensor3 grad_h = traced(linear2.backward(grad_output), "backward linear2", "grad_h", kHidden);
  grad_h = traced(dropout_.backward(std::move(grad_h)), "backward dropout", "grad_h", kHidden);
  grad_h = traced(relu_.backward(std::move(grad_h)), "backward relu", "grad_h", kHidden);
  return traced(linear1.backward(grad_h), "backward linear1", "grad_x", kModel);
}
// [ffn backward]

void FeedForward::collect_parameters(ParameterList& list) {
  list.add_module("linear1", linear1);
  list.add_module("linear2", linear2);
}

}  // namespace tfm
