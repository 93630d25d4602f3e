#include "tfm/feed_forward.hpp"

#include <memory>
#include <string>
#include <utility>

#include "tfm/trace.hpp"

namespace tfm {

namespace {
constexpr const char* kName = "FeedForward";
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
  Tensor3 h = linear1.forward(x);
  trace::step(kName, "linear1 (widen)", "h", h, "batch, len, d_ff");
  h = relu_.forward(h);
  trace::step(kName, "relu", "h", h, "batch, len, d_ff");
  h = dropout_.forward(h);
  trace::step(kName, dropout_.training() ? "dropout (training)" : "dropout (evaluation: identity)",
              "h", h, "batch, len, d_ff");
  Tensor3 y = linear2.forward(std::make_shared<const Tensor3>(std::move(h)));  // kept, not copied
  trace::step(kName, "linear2 (narrow)", "y", y, "batch, len, d_model");
  return y;
}
// [ffn forward]

// [ffn backward]
Tensor3 FeedForward::backward(const Tensor3& d_output) {
  // d_output [B, L, d_model] -> dx [B, L, d_model], each step's backward in reverse order:
  //   y = h2 W_2ᵀ + b_2          ->  dh2 = dy W_2              (and dW_2 += dyᵀ h2, db_2 += Σ dy)
  //   h2 = h1 * mask / (1 - p)   ->  dh1 = dh2 * mask / (1 - p) (the same mask as forward)
  //   h1 = max(0, a)             ->  da = dh1 where a > 0, else 0
  //   a = x W_1ᵀ + b_1           ->  dx = da W_1               (and dW_1, db_1)
  Tensor3 d = linear2.backward(d_output);
  trace::step(kName, "backward linear2", "dh", d, "batch, len, d_ff");
  d = dropout_.backward(d);
  trace::step(kName, "backward dropout", "dh", d, "batch, len, d_ff");
  d = relu_.backward(d);
  trace::step(kName, "backward relu", "dh", d, "batch, len, d_ff");
  d = linear1.backward(d);
  trace::step(kName, "backward linear1", "dx", d, "batch, len, d_model");
  return d;
}
// [ffn backward]

void FeedForward::collect_parameters(ParameterList& list) {
  list.add_module("linear1", linear1);
  list.add_module("linear2", linear2);
}

}  // namespace tfm
