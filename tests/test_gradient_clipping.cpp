#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>

#include "fixtures.hpp"
#include "tfm/train/gradient_clipping.hpp"

using namespace tfm;

namespace {

// Three parameters of different ranks, like the pieces of a model.
struct Three {
  Param<2> a = Param<2>::zeros({3, 4});
  Param<1> b = Param<1>::zeros({4});
  Param<3> c = Param<3>::zeros({2, 2, 3});
  void collect_parameters(ParameterList& list) {
    list.add("a", a);
    list.add("b", b);
    list.add("c", c);
  }
  void load(const std::string& prefix) {
    a.grad = testing::load_fixture<2>(prefix + "0");
    b.grad = testing::load_fixture<1>(prefix + "1");
    c.grad = testing::load_fixture<3>(prefix + "2");
  }
};

}  // namespace

// Parity with torch.nn.utils.clip_grad_norm_ (float64). Tolerance: relative 1e-4, atol 1e-6.
TEST_CASE("clip_grad_norm agrees with torch.nn.utils.clip_grad_norm_",
          "[gradient_clipping][pytorch]") {
  for (const auto& [name, max_norm] :
       {std::pair<std::string, float>{"clipped", 1.0f}, {"unclipped", 100.0f}}) {
    INFO("case " << name);
    Three model;
    model.load("gradient_clipping/grad_");
    const Tensor1 norm = {clip_grad_norm(parameters_of(model), max_norm)};
    const std::string f = "gradient_clipping/" + name + "_";
    double worst = testing::max_relative_error(norm, testing::load_fixture<1>(f + "norm"));
    worst = std::max(
        worst, testing::max_relative_error(model.a.grad, testing::load_fixture<2>(f + "grad_0")));
    worst = std::max(
        worst, testing::max_relative_error(model.b.grad, testing::load_fixture<1>(f + "grad_1")));
    worst = std::max(
        worst, testing::max_relative_error(model.c.grad, testing::load_fixture<3>(f + "grad_2")));
    UNSCOPED_INFO("clip_grad_norm " << name << ": " << worst);
    CHECK(worst < 1e-4);
  }
}

TEST_CASE("clip_grad_norm: the clipped norm is max_norm, the direction is kept",
          "[gradient_clipping]") {
  Three model;
  model.a.grad.fill(3.0f);   // 12 · 9 = 108
  model.b.grad.fill(-6.0f);  // 4 · 36 = 144, total 252 + 0
  const ParameterList params = parameters_of(model);
  CHECK(clip_grad_norm(params, 2.0f) == Approx(std::sqrt(252.0)));
  CHECK(gradient_norm(params) == Approx(2.0).epsilon(1e-6));
  CHECK(model.a.grad(0, 0) / model.b.grad(0) == Approx(-0.5));
  // Below the threshold nothing changes.
  const Tensor2 before = model.a.grad;
  CHECK(clip_grad_norm(params, 5.0f) == Approx(2.0).epsilon(1e-6));
  CHECK((model.a.grad == before));
  // A zero gradient stays zero (the 1e-6 keeps the factor finite).
  params.zero_grad();
  CHECK(clip_grad_norm(params, 1.0f) == 0.0f);
  CHECK_THROWS_AS(clip_grad_norm(params, 0.0f), ShapeError);
}

TEST_CASE("first_non_finite_gradient names the culprit and clipping leaves it untouched",
          "[gradient_clipping]") {
  Three model;
  model.a.grad.fill(1.0f);
  const ParameterList params = parameters_of(model);
  CHECK_FALSE(first_non_finite_gradient(params).has_value());
  // The largest finite floats are finite, and so is the sum of their squares (in double).
  model.b.grad.fill(-std::numeric_limits<float>::max());
  CHECK_FALSE(first_non_finite_gradient(params).has_value());
  model.b.grad.fill(0.0f);
  model.c.grad(1, 0, 2) = std::numeric_limits<float>::infinity();
  CHECK(first_non_finite_gradient(params) == std::string("c"));
  model.b.grad(3) = std::numeric_limits<float>::quiet_NaN();
  CHECK(first_non_finite_gradient(params) == std::string("b"));
  // A non-finite norm is returned as it is and no gradient is scaled.
  CHECK_FALSE(std::isfinite(clip_grad_norm(params, 1.0f)));
  CHECK(model.a.grad(2, 3) == 1.0f);
}
