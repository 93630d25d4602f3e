// Add & Norm (chapter 08): y = LayerNorm(residual + Dropout(sublayer_output)), post-norm.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "expected_trace.hpp"
#include "gradient_check.hpp"
#include "model_helpers.hpp"
#include "tfm/core/trace.hpp"
#include "tfm/layers/add_norm.hpp"

using namespace tfm;
using testing::random_normal;
using testing::same;

namespace {

// Moves the norm away from its initial weight 1, bias 0, so that their gradients are tested
// for real and a swapped weight/bias would show.
void randomise_norm(AddNorm& add_norm, Rng& rng) {
  rng.fill_uniform(add_norm.norm.weight.value, 0.5f, 1.5f);
  rng.fill_uniform(add_norm.norm.bias.value, -0.5f, 0.5f);
}

void copy_norm(const AddNorm& from, AddNorm& to) {
  to.norm.weight.value = from.norm.weight.value;
  to.norm.bias.value = from.norm.bias.value;
}

}  // namespace

TEST_CASE("AddNorm: y = LayerNorm(x + sublayer(x)) exactly", "[add_norm]") {
  // With dropout 0, or in evaluation mode, Add & Norm is a LayerNorm of the sum: compared with
  // a separate LayerNorm holding the same weights, bit for bit.
  Rng rng(1);
  const std::size_t d = 8;
  const Tensor3 x = random_normal({2, 3, d}, rng), s = random_normal({2, 3, d}, rng);
  for (const bool eval_mode : {false, true}) {
    INFO((eval_mode ? "p = 0.4 in evaluation mode" : "p = 0 in training mode"));
    AddNorm add_norm(d, eval_mode ? 0.4f : 0.0f, 7);
    if (eval_mode) add_norm.set_training(false);
    randomise_norm(add_norm, rng);
    LayerNorm norm(d);
    norm.weight.value = add_norm.norm.weight.value;
    norm.bias.value = add_norm.norm.bias.value;
    const Tensor3 sum = x + s;
    CHECK(same(add_norm.forward(x, s), norm.forward(sum)));
  }
}

TEST_CASE(
    "AddNorm: the residual gets the sum's gradient and the sub-layer the same through dropout",
    "[add_norm]") {
  // d(x + dropout(s))/dx is the identity and d/ds is the dropout mask: with p = 0.5 every entry
  // of the sub-layer's gradient is either 0 (dropped) or exactly 2x the residual's (kept, 1/(1-p)).
  Rng rng(2);
  const std::size_t d = 8;
  AddNorm add_norm(d, 0.5f, 11);
  randomise_norm(add_norm, rng);
  const Tensor3 x = random_normal({2, 4, d}, rng), s = random_normal({2, 4, d}, rng);
  const Tensor3 grad_y = random_normal({2, 4, d}, rng);
  add_norm.forward(x, s);
  const AddNorm::Grads grads = add_norm.backward(grad_y);
  REQUIRE(grads.residual.shape() == x.shape());
  REQUIRE(grads.sublayer_output.shape() == s.shape());

  std::size_t dropped = 0, kept = 0, other = 0;
  for (std::size_t i = 0; i < grad_y.size(); ++i) {
    const float r = grads.residual.data()[i], g = grads.sublayer_output.data()[i];
    if (g == 0.0f)
      ++dropped;
    else if (g == 2.0f * r)
      ++kept;
    else
      ++other;
  }
  CHECK(dropped > 0);
  CHECK(kept > 0);
  CHECK(other == 0);
}

TEST_CASE("AddNorm: gradients agree with finite differences", "[add_norm][gradcheck]") {
  // L = sum(y * probe), both inputs and both parameters, every entry, with dropout off and on.
  // LayerNorm is smooth, so the central difference has a truncation error O(eps^2 L''') and a
  // float32 rounding error ~1e-7 |L| / eps; measured worst score
  // |analytic - numeric| / (1e-2 + |numeric|) by eps: 3e-2: 5.3e-4, 1e-2: 3.1e-4, 3e-3: 1.3e-3,
  // 1e-3: 3.7e-3. Hence eps = 1e-2 and the bound 5e-3; a wrong gradient (the residual path
  // missing, the dropout mask not applied, weight and bias swapped) is off by O(1).
  const float eps = 1e-2f;
  const double atol = 1e-2, tol = 5e-3;
  const std::size_t d = 8;

  for (const float p : {0.0f, 0.3f}) {
    INFO("dropout p = " << p);
    const std::uint64_t seed = 5;
    Rng rng(3);
    AddNorm add_norm(d, p, seed);
    randomise_norm(add_norm, rng);
    Tensor3 x = random_normal({2, 3, d}, rng), s = random_normal({2, 3, d}, rng);
    const Tensor3 probe = random_normal({2, 3, d}, rng);
    add_norm.forward(x, s);
    const AddNorm::Grads grads = add_norm.backward(probe);

    // Every evaluation re-runs a fresh AddNorm from the same dropout seed (and the possibly
    // nudged weights): it draws the very mask of the forward above.
    auto loss = [&] {
      AddNorm again(d, p, seed);
      copy_norm(add_norm, again);
      return testing::dot_loss(again.forward(x, s), probe);
    };
    auto rep = testing::check_gradient(x.data(), grads.residual.data(), x.size(), loss, eps, atol);
    INFO(rep.describe("residual"));
    CHECK(rep.worst < tol);
    rep =
        testing::check_gradient(s.data(), grads.sublayer_output.data(), s.size(), loss, eps, atol);
    INFO(rep.describe("sublayer_output"));
    CHECK(rep.worst < tol);
    for (const ParameterRef& ref : parameters_of(add_norm)) {
      rep = testing::check_gradient(ref.value, ref.grad, ref.size, loss, eps, atol);
      INFO(rep.describe(ref.name));
      CHECK(rep.worst < tol);
    }
  }
}

TEST_CASE("AddNorm: dropout is reproducible in training and off in evaluation",
          "[add_norm][dropout]") {
  Rng rng(4);
  const std::size_t d = 8;
  const Tensor3 x = random_normal({2, 5, d}, rng), s = random_normal({2, 5, d}, rng);
  AddNorm a(d, 0.5f, 21), b(d, 0.5f, 21), other_seed(d, 0.5f, 22), no_dropout(d, 0.0f, 21);
  const Tensor3 first = a.forward(x, s);
  CHECK(same(first, b.forward(x, s)));  // same seed, same masks, same output
  CHECK_FALSE(same(first, other_seed.forward(x, s)));
  CHECK_FALSE(same(first, a.forward(x, s)));  // the next call draws a new mask
  CHECK_FALSE(same(first, no_dropout.forward(x, s)));
  a.set_training(false);
  CHECK(same(a.forward(x, s), no_dropout.forward(x, s)));  // evaluation: dropout is the identity
}

TEST_CASE("AddNorm: parameters and the trace and errors", "[add_norm][trace]") {
  Rng rng(6);
  AddNorm add_norm(8, 0.1f, 1);
  const ParameterList params = parameters_of(add_norm);
  REQUIRE(params.size() == 2);
  CHECK(params.refs()[0].name == "weight");  // no extra level: an encoder layer's is norm1.weight
  CHECK(params.refs()[1].name == "bias");
  CHECK(params.count() == 16);

  const Tensor3 x = random_normal({2, 5, 8}, rng), s = random_normal({2, 5, 8}, rng);
  trace::Capture capture;
  add_norm.forward(x, s);
  testing::ExpectedTrace expected;
  testing::add_norm_forward(expected, 0, 2, 5, 8);
  testing::check_trace(capture.text(), expected);

  CHECK_THROWS_AS(add_norm.forward(x, Tensor3(xt::zeros<float>({2, 4, 8}))), ShapeError);
  CHECK_THROWS_WITH(add_norm.forward(x, Tensor3(xt::zeros<float>({2, 4, 8}))),
                    Catch::Contains("residual [2, 5, 8] and sub-layer output [2, 4, 8] differ"));
}
