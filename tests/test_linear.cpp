#include <catch2/catch.hpp>

#include "gradient_check.hpp"
#include "tfm/layers/linear.hpp"

using namespace tfm;

TEST_CASE("Linear: y = x W^T + b, shapes and values", "[linear]") {
  Rng rng(3);
  Linear layer(3, 2, true, rng);
  layer.weight.value = {{1, 2, 3}, {-1, 0, 1}};
  layer.bias.value = {0.5f, -0.5f};
  Tensor3 x = {{{1, 1, 1}, {0, 1, 2}}};
  const Tensor3 y = layer.forward(x);
  REQUIRE(y.shape() == Tensor3::shape_type{1, 2, 2});
  CHECK(y(0, 0, 0) == 6.5f);
  CHECK(y(0, 0, 1) == -0.5f);
  CHECK(y(0, 1, 0) == 8.5f);
  CHECK(y(0, 1, 1) == 1.5f);
  CHECK_THROWS_WITH(layer.forward(Tensor3(xt::zeros<float>({1, 2, 4}))),
                    Catch::Contains("Linear: input has shape [1, 2, 4], expected [*, *, 3]"));
}

TEST_CASE("Linear: gradients agree with finite differences", "[linear][gradcheck]") {
  for (bool bias : {true, false}) {
    Rng rng(4);
    Linear layer(5, 4, bias, rng);
    Tensor3 x = Tensor3::from_shape({2, 3, 5}), probe = Tensor3::from_shape({2, 3, 4});
    rng.fill_normal(x, 0, 1);
    rng.fill_normal(probe, 0, 1);
    layer.forward(x);
    const Tensor3 grad_x = layer.backward(probe);
    auto loss = [&] { return testing::dot_loss(layer.forward(x), probe); };
    // float32 forward, eps 1e-2: truncation error is zero (the loss is linear in each entry) and
    // rounding noise is ~1e-6 / 1e-2; a wrong gradient is off by O(1).
    const double tol = 1e-3;
    auto rep = testing::check_gradient(x.data(), grad_x.data(), x.size(), loss, 1e-2f, 1e-3);
    CHECK(rep.worst < tol);
    rep = testing::check_gradient(layer.weight.value.data(), layer.weight.grad.data(),
                                  layer.weight.value.size(), loss, 1e-2f, 1e-3);
    CHECK(rep.worst < tol);
    if (bias) {
      rep = testing::check_gradient(layer.bias.value.data(), layer.bias.grad.data(),
                                    layer.bias.value.size(), loss, 1e-2f, 1e-3);
      CHECK(rep.worst < tol);
    }
    ParameterList params = parameters_of(layer);
    CHECK(params.size() == (bias ? 2u : 1u));
    CHECK(params.at("weight").shape == std::vector<std::size_t>{4, 5});
  }
}
