#include <catch2/catch.hpp>
#include <cmath>

#include "gradient_check.hpp"
#include "tfm/core/random.hpp"
#include "tfm/layers/relu.hpp"

using namespace tfm;

TEST_CASE("ReLU: max(0, x) and its gradient mask", "[relu]") {
  ReLU relu;
  const Tensor3 x = {{{-2, -0.5f, 0, 0.5f, 3}}};
  const Tensor3 y = relu.forward(x);
  const Tensor3 expected_y = {{{0, 0, 0, 0.5f, 3}}};
  CHECK((y == expected_y));
  const Tensor3 grad_y = {{{1, 2, 3, 4, 5}}};
  const Tensor3 grad_x = relu.backward(grad_y);
  // The gradient passes only where x > 0; at x = 0 it is 0, as in PyTorch.
  const Tensor3 expected_dx = {{{0, 0, 0, 4, 5}}};
  CHECK((grad_x == expected_dx));
  // A moved-in gradient is overwritten in its own memory: no new tensor.
  Tensor3 moved = grad_y;
  const float* memory = moved.data();
  const Tensor3 dx_in_place = relu.backward(std::move(moved));
  CHECK(dx_in_place.data() == memory);
  CHECK((dx_in_place == expected_dx));
  CHECK_THROWS_WITH(
      relu.backward(Tensor3(xt::zeros<float>({1, 1, 4}))),
      Catch::Contains("ReLU backward: grad_y has shape [1, 1, 4]") && Catch::Contains("[1, 1, 5]"));
}

TEST_CASE("ReLU: backward agrees with finite differences", "[relu][gradcheck]") {
  Rng rng(12);
  Tensor3 x = Tensor3::from_shape({2, 3, 4}), probe = Tensor3::from_shape({2, 3, 4});
  rng.fill_normal(x, 0, 1);
  rng.fill_normal(probe, 0, 1);
  // Keep every entry at least 0.1 away from the kink at 0, where the derivative jumps and a
  // difference with eps = 1e-2 would straddle it.
  for (auto& v : x) v = v >= 0 ? v + 0.1f : v - 0.1f;
  ReLU relu;
  relu.forward(x);
  const Tensor3 grad_x = relu.backward(probe);
  auto loss = [&] { return testing::dot_loss(relu.forward(x), probe); };
  // Piecewise linear: away from the kink the central difference is exact up to float rounding
  // (~1e-6 / eps), so a tight tolerance works and a wrong mask is off by O(1).
  const auto rep = testing::check_gradient(x.data(), grad_x.data(), x.size(), loss, 1e-2f, 1e-3);
  INFO(rep.describe("grad_x"));
  CHECK(rep.worst < 1e-3);
}
