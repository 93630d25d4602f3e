#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "fixtures.hpp"
#include "gradient_check.hpp"
#include "tfm/core/random.hpp"
#include "tfm/core/trace.hpp"
#include "tfm/layers/layer_norm.hpp"

using namespace tfm;

TEST_CASE("LayerNorm: each row gets mean 0 and variance 1, then weight and bias", "[layer_norm]") {
  LayerNorm norm(4);
  CHECK((norm.weight.value == Tensor1{1, 1, 1, 1}));  // PyTorch's initialisation
  CHECK((norm.bias.value == Tensor1{0, 0, 0, 0}));
  Tensor3 x = {{{1, 2, 3, 4}, {-5, -5, -5, -5}}};
  Tensor3 y = norm.forward(x);
  // Row 1: mean 2.5, biased variance 1.25, so y = (x - 2.5) / sqrt(1.25 + 1e-5).
  const double sd = std::sqrt(1.25 + 1e-5);
  for (int j = 0; j < 4; ++j) CHECK(y(0, 0, j) == Approx((j + 1 - 2.5) / sd).epsilon(1e-6));
  // Row 2 is constant: variance 0, and eps keeps the result at 0 instead of 0/0.
  for (int j = 0; j < 4; ++j) CHECK(y(0, 1, j) == 0.0f);

  norm.weight.value = {2, 2, 2, 2};
  norm.bias.value = {1, 1, 1, 1};
  y = norm.forward(x);
  CHECK(y(0, 0, 3) == Approx(2 * 1.5 / sd + 1).epsilon(1e-6));
  CHECK(y(0, 1, 0) == 1.0f);
}

TEST_CASE("LayerNorm: wrong width and backward before forward are clear errors", "[layer_norm]") {
  LayerNorm norm(8);
  CHECK_THROWS_AS(norm.backward(Tensor3(xt::zeros<float>({1, 2, 8}))), ShapeError);
  CHECK_THROWS_WITH(
      norm.forward(Tensor3(xt::zeros<float>({2, 3, 6}))),
      "LayerNorm: input has shape [2, 3, 6], expected [*, *, 8] (batch, len, d_model)");
  norm.forward(Tensor3(xt::zeros<float>({2, 3, 8})));
  CHECK_THROWS_WITH(
      norm.backward(Tensor3(xt::zeros<float>({2, 4, 8}))),
      Catch::Contains("LayerNorm backward: grad_y has shape [2, 4, 8], expected [2, 3, 8]"));
  CHECK_THROWS_AS(LayerNorm(0), ShapeError);
}

TEST_CASE("LayerNorm: registers weight and bias and reports its step", "[layer_norm][trace]") {
  LayerNorm norm(6);
  ParameterList params = parameters_of(norm);
  REQUIRE(params.size() == 2);
  CHECK(params.refs()[0].name == "weight");
  CHECK(params.refs()[1].name == "bias");
  CHECK(params.at("bias").shape == std::vector<std::size_t>{6});

  trace::Capture capture;
  norm.forward(Tensor3(xt::ones<float>({2, 5, 6})));
  const auto lines = capture.lines();
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].rfind("[LayerNorm] normalise over d_model", 0) == 0);
  CHECK(lines[0].find("y -> [2, 5, 6]") != std::string::npos);
  CHECK(lines[0].find("(batch, len, d_model)") != std::string::npos);
}

// Parity with nn.LayerNorm computed in float64. Tolerance: relative 1e-4 with an absolute floor
// atol = 1e-5 for entries near 0 (the inputs are O(1), so float32 rounding of intermediate terms
// is ~1e-7 absolute; an entry of 1e-6 cannot be reproduced to 1e-4 of itself). Measured worst
// errors are printed with -s and summarised in the report.
TEST_CASE("LayerNorm: forward and backward agree with PyTorch", "[layer_norm][pytorch]") {
  const double rtol = 1e-4, atol = 1e-5;
  for (const std::string c : {"basic", "offset"}) {
    INFO("case " << c);
    const std::string f = "layer_norm/" + c + "_";
    auto vector = [&](const char* name) { return testing::load_fixture<1>(f + name); };
    auto tensor = [&](const char* name) { return testing::load_fixture<3>(f + name); };
    const Tensor3 x = tensor("x");
    LayerNorm norm(x.shape(2));
    norm.weight.value = vector("weight");
    norm.bias.value = vector("bias");
    const Tensor3 y = norm.forward(x);
    const Tensor3 grad_x = norm.backward(tensor("grad_y"));
    const double e_y = testing::max_relative_error(y, tensor("y"), atol);
    const double e_dx = testing::max_relative_error(grad_x, tensor("grad_x"), atol);
    const double e_dw = testing::max_relative_error(norm.weight.grad, vector("grad_weight"), atol);
    const double e_db = testing::max_relative_error(norm.bias.grad, vector("grad_bias"), atol);
    UNSCOPED_INFO("LayerNorm " << c << ": y " << e_y << ", grad_x " << e_dx << ", grad_weight "
                               << e_dw << ", grad_bias " << e_db);
    CHECK(e_y < rtol);
    CHECK(e_dx < rtol);
    CHECK(e_dw < rtol);
    CHECK(e_db < rtol);
  }
}

TEST_CASE("LayerNorm: gradients agree with finite differences", "[layer_norm][gradcheck]") {
  Rng rng(21);
  LayerNorm norm(6);
  rng.fill_normal(norm.weight.value, 1.0f, 0.5f);
  rng.fill_normal(norm.bias.value, 0.0f, 0.5f);
  Tensor3 x = Tensor3::from_shape({2, 3, 6}), probe = Tensor3::from_shape({2, 3, 6});
  rng.fill_normal(x, 0.5f, 2.0f);
  rng.fill_normal(probe, 0.0f, 1.0f);
  norm.forward(x);
  const Tensor3 grad_x = norm.backward(probe);
  auto loss = [&] { return testing::dot_loss(norm.forward(x), probe); };
  // The forward runs in float32, so the loss (a sum of 36 products of O(1)) carries a rounding
  // error of ~1e-6; divided by 2·eps = 2e-2 that is ~3e-5 of noise in every numeric derivative
  // (measured: |analytic - numeric| <= 2.7e-5). A smaller eps makes that noise larger, a larger
  // one lets the truncation error O(eps²) take over (eps 3e-2: 1.5e-4; eps 1e-1: 1.6e-3).
  // atol 1e-2 keeps the noise from dominating the score of the few entries near 0; measured
  // worst scores 1.3e-3 (dx), 1.1e-5 (dweight), 1.3e-6 (dbias). A missing or wrong term of the
  // backward formula is O(|g|), a score of O(1).
  const double tol = 1e-2;
  auto rep = testing::check_gradient(x.data(), grad_x.data(), x.size(), loss, 1e-2f, 1e-2);
  INFO(rep.describe("grad_x"));
  CHECK(rep.worst < tol);
  rep = testing::check_gradient(norm.weight.value.data(), norm.weight.grad.data(),
                                norm.weight.value.size(), loss, 1e-2f, 1e-2);
  INFO(rep.describe("grad_weight"));
  CHECK(rep.worst < tol);
  rep = testing::check_gradient(norm.bias.value.data(), norm.bias.grad.data(),
                                norm.bias.value.size(), loss, 1e-2f, 1e-2);
  INFO(rep.describe("grad_bias"));
  CHECK(rep.worst < tol);
}

TEST_CASE("LayerNorm: backward accumulates parameter gradients", "[layer_norm]") {
  LayerNorm norm(3);
  Tensor3 x = {{{1, 4, 2}}}, grad_y = {{{0.5f, -1, 2}}};
  norm.forward(x);
  norm.backward(grad_y);
  const Tensor1 once = norm.weight.grad;
  norm.backward(grad_y);
  for (std::size_t j = 0; j < 3; ++j) CHECK(norm.weight.grad(j) == Approx(2 * once(j)));
  CHECK((norm.bias.grad == Tensor1{1, -2, 4}));
}
