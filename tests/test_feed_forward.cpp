#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "gradient_check.hpp"
#include "tfm/core/trace.hpp"
#include "tfm/layers/feed_forward.hpp"

using namespace tfm;
using testing::load_as;
using testing::random_normal;
using testing::relative_error;

namespace {

// Copies every parameter value of `from` into `to` (same architecture, same names).
void copy_parameters(FeedForward& from, FeedForward& to) {
  const ParameterList source = parameters_of(from), target = parameters_of(to);
  for (std::size_t i = 0; i < source.size(); ++i)
    std::copy(source.refs()[i].value, source.refs()[i].value + source.refs()[i].size,
              target.refs()[i].value);
}

// The finite differences below are exact for a piecewise-linear loss only if no nudge moves a
// hidden pre-activation a = x W_1ᵀ + b_1 across the ReLU's kink at 0. Nudging x[.., i] moves a by
// eps |W_1[j, i]|, nudging W_1[j, i] by eps |x[.., i]|, nudging b_1[j] by eps: the smallest |a|
// must exceed eps times the largest of these.
void require_no_kink_crossing(FeedForward& ffn, const Tensor3& x, float eps) {
  const Tensor3 a = ffn.linear1.forward(x);
  float smallest = INFINITY;
  for (float v : a) smallest = std::min(smallest, std::abs(v));
  const float largest_nudge =
      eps * std::max({1.0f, xt::amax(xt::abs(x))(), xt::amax(xt::abs(ffn.linear1.weight.value))()});
  INFO("smallest |pre-activation| " << smallest << ", largest nudge " << largest_nudge);
  REQUIRE(smallest > largest_nudge);
}

}  // namespace

TEST_CASE("FeedForward: forward and backward match PyTorch", "[ffn][parity]") {
  // Reference: tests/fixtures/make_ffn_fixtures.py, reference 000's FeedForward in float64 on the
  // same float32 inputs and weights, dropout off. B = 2, L = 3, d_model = 8, d_ff = 16.
  // Bound: |ours - torch| / (atol + |torch|) below 1e-4 for every entry, with atol = 1e-3 (the
  // tensors' largest entries are O(1): relative 1e-4 above 1e-3, absolute 1e-7 below).
  // Reached: 1.1e-5.
  const double tol = 1e-4, atol = 1e-3;
  for (const bool bias : {true, false}) {
    const std::string prefix = std::string("ffn/") + (bias ? "bias" : "nobias") + ".";
    // Dropout off in two ways: p = 0.1 in evaluation mode, and p = 0 in training mode.
    for (const bool eval_mode : {true, false}) {
      Rng rng(0);
      FeedForward ffn(8, 16, bias, eval_mode ? 0.1f : 0.0f, 42, rng);
      if (eval_mode) ffn.set_training(false);
      ParameterList params = parameters_of(ffn);
      REQUIRE(params.size() == (bias ? 4u : 2u));
      for (const ParameterRef& p : params) {
        const xt::xarray<float> value = load_as(prefix + p.name, p.shape);
        std::copy(value.begin(), value.end(), p.value);
      }
      const Tensor3 output = ffn.forward(testing::load_fixture<3>(prefix + "x"));
      const Tensor3 grad_x = ffn.backward(testing::load_fixture<3>(prefix + "grad_output"));

      std::vector<std::pair<std::string, double>> errors;
      errors.emplace_back("output", testing::max_relative_error(
                                        output, testing::load_fixture<3>(prefix + "output"), atol));
      errors.emplace_back("grad.x", testing::max_relative_error(
                                        grad_x, testing::load_fixture<3>(prefix + "grad.x"), atol));
      for (const ParameterRef& p : params)
        errors.emplace_back(
            "grad." + p.name,
            relative_error(p.grad, load_as(prefix + "grad." + p.name, p.shape), atol));
      for (const auto& [tensor, err] : errors) {
        INFO(prefix << tensor << (eval_mode ? " (eval)" : " (p = 0)") << ": max relative error "
                    << err);
        CHECK(err < tol);
      }
    }
  }
}

TEST_CASE("FeedForward: gradients agree with finite differences", "[ffn][gradcheck]") {
  // L = sum(output * probe). Between ReLU kinks the loss is linear in every entry of x, W_1, b_1
  // (and everywhere in W_2, b_2), so the central difference has no truncation error at all; what
  // is left is float32 rounding of the forward, ~1e-6 absolute in L, i.e. ~5e-4 in the quotient
  // with eps = 1e-3. Scored against atol = 1e-2, a correct gradient stays below ~1e-2 (measured:
  // 5.7e-3), hence the bound 5e-2; a wrong one (dropout mask not applied, ReLU passing negatives,
  // a transposed weight) is off by O(1).
  // eps is small so that no nudge crosses a kink; require_no_kink_crossing checks it.
  const float eps = 1e-3f;
  const double atol = 1e-2, tol = 5e-2;

  SECTION("dropout off") {
    Rng rng(21);
    FeedForward ffn(8, 16, true, 0.1f, 7, rng);
    ffn.set_training(false);
    Tensor3 x = random_normal({2, 3, 8}, rng);
    const Tensor3 probe = random_normal({2, 3, 8}, rng);
    require_no_kink_crossing(ffn, x, eps);
    ffn.forward(x);
    const Tensor3 grad_x = ffn.backward(probe);
    auto loss = [&] { return testing::dot_loss(ffn.forward(x), probe); };
    auto rep = testing::check_gradient(x.data(), grad_x.data(), x.size(), loss, eps, atol);
    INFO(rep.describe("x"));
    CHECK(rep.worst < tol);
    for (const ParameterRef& p : parameters_of(ffn)) {
      rep = testing::check_gradient(p.value, p.grad, p.size, loss, eps, atol);
      INFO(rep.describe(p.name));
      CHECK(rep.worst < tol);
    }
  }

  SECTION("dropout on, with the mask held fixed") {
    // The mask is random, so each evaluation of the loss re-runs a fresh network from the same
    // dropout seed (and the perturbed weights): it draws the very mask of the first forward.
    const float p = 0.5f;
    const std::uint64_t seed = 99;
    Rng rng(22);
    FeedForward ffn(8, 16, true, p, seed, rng);
    Tensor3 x = random_normal({2, 3, 8}, rng);
    const Tensor3 probe = random_normal({2, 3, 8}, rng);
    require_no_kink_crossing(ffn, x, eps);
    const Tensor3 y = ffn.forward(x);
    const Tensor3 grad_x = ffn.backward(probe);
    const ByteTensor3 mask = ffn.dropout_mask();
    REQUIRE(mask.shape() == ByteTensor3::shape_type{2, 3, 16});
    const auto dropped = std::count(mask.begin(), mask.end(), 0);
    const auto kept = std::count(mask.begin(), mask.end(), 1);
    CHECK(dropped > 0);
    CHECK(kept > 0);
    CHECK(dropped + kept == static_cast<long>(mask.size()));

    auto rerun = [&] {
      Rng unused(0);
      FeedForward again(8, 16, true, p, seed, unused);
      copy_parameters(ffn, again);
      return again;
    };
    {
      FeedForward again = rerun();
      // Same seed, same weights: bit for bit the same output and mask. (Compared outside CHECK:
      // xtensor's == inside Catch's expression decomposition does not compile.)
      const bool same_output = again.forward(x) == y;
      const bool same_mask = again.dropout_mask() == mask;
      CHECK(same_output);
      CHECK(same_mask);
    }
    auto loss = [&] { return testing::dot_loss(rerun().forward(x), probe); };
    auto rep = testing::check_gradient(x.data(), grad_x.data(), x.size(), loss, eps, atol);
    INFO(rep.describe("x"));
    CHECK(rep.worst < tol);
    for (const ParameterRef& ref : parameters_of(ffn)) {
      rep = testing::check_gradient(ref.value, ref.grad, ref.size, loss, eps, atol);
      INFO(rep.describe(ref.name));
      CHECK(rep.worst < tol);
    }
  }
}

TEST_CASE("FeedForward: shapes, parameters, the trace and errors", "[ffn][trace]") {
  Rng rng(4);
  FeedForward ffn(8, 32, true, 0.1f, 1, rng);
  CHECK(ffn.training());
  ParameterList params = parameters_of(ffn);
  REQUIRE(params.size() == 4);
  CHECK(params.at("linear1.weight").shape == std::vector<std::size_t>{32, 8});
  CHECK(params.at("linear2.weight").shape == std::vector<std::size_t>{8, 32});
  CHECK(params.count() == 8 * 32 + 32 + 32 * 8 + 8);

  const Tensor3 x = random_normal({2, 5, 8}, rng);
  std::vector<std::string> lines;
  {
    trace::Capture capture;
    const Tensor3 y = ffn.forward(x);
    CHECK(y.shape() == x.shape());
    CHECK(ffn.backward(y).shape() == x.shape());
    lines = capture.lines();
  }
  const std::vector<std::string> expected = {
      "[FeedForward] linear1 (widen)",    "[FeedForward] relu",
      "[FeedForward] dropout (training)", "[FeedForward] linear2 (narrow)",
      "[FeedForward] backward linear2",   "[FeedForward] backward dropout",
      "[FeedForward] backward relu",      "[FeedForward] backward linear1"};
  const std::vector<std::string> shapes = {"h -> [2, 5, 32]",      "h -> [2, 5, 32]",
                                           "h -> [2, 5, 32]",      "y -> [2, 5, 8]",
                                           "grad_h -> [2, 5, 32]", "grad_h -> [2, 5, 32]",
                                           "grad_h -> [2, 5, 32]", "grad_x -> [2, 5, 8]"};
  REQUIRE(lines.size() == expected.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    CHECK(lines[i].rfind(expected[i], 0) == 0);
    CHECK(lines[i].find(shapes[i]) != std::string::npos);
  }

  // Without dropout the trace says that the step changes nothing, in training too.
  FeedForward no_dropout(8, 32, true, 0.0f, 1, rng);
  {
    trace::Capture capture;
    (void)no_dropout.forward(x);
    REQUIRE(capture.lines().size() == 4);
    CHECK(capture.lines()[2].rfind("[FeedForward] dropout (p = 0: identity)", 0) == 0);
  }

  CHECK_THROWS_AS(ffn.forward(Tensor3(xt::zeros<float>({2, 3, 7}))), ShapeError);
  CHECK_THROWS_WITH(ffn.forward(Tensor3(xt::zeros<float>({2, 3, 7}))),
                    Catch::Contains("FeedForward: input has shape [2, 3, 7], expected [*, *, 8]"));
}
