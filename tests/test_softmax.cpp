#include <algorithm>
#include <catch2/catch.hpp>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "fixtures.hpp"
#include "gradient_check.hpp"
#include "tfm/core/random.hpp"
#include "tfm/engine/fast_exp.hpp"
#include "tfm/layers/softmax.hpp"

using namespace tfm;

TEST_CASE("softmax: rows are distributions, stable for large scores", "[softmax]") {
  // Row 0: ordinary; row 1: +1000 (e^1000 overflows without subtracting the max);
  // row 2: all -1e9, the score of a fully masked row -> uniform, not NaN.
  Tensor2 x = {{1, 2, 3, 4}, {1001, 1002, 1003, 1004}, {-1e9f, -1e9f, -1e9f, -1e9f}};
  Tensor2 y = Tensor2::from_shape(x.shape());
  softmax_rows(x.data(), y.data(), 3, 4);
  for (std::size_t r = 0; r < 3; ++r) {
    double sum = 0;
    for (std::size_t j = 0; j < 4; ++j) {
      REQUIRE(std::isfinite(y(r, j)));
      sum += y(r, j);
    }
    CHECK(sum == Approx(1.0).epsilon(1e-6));
  }
  // Adding a constant to a row changes nothing (up to float rounding of the inputs).
  for (std::size_t j = 0; j < 4; ++j) CHECK(y(1, j) == Approx(y(0, j)).epsilon(1e-5));
  for (std::size_t j = 0; j < 4; ++j) CHECK(y(2, j) == 0.25f);
  // e^1 / (e^1 + e^2 + e^3 + e^4)
  CHECK(y(0, 0) ==
        Approx(std::exp(1.0) / (std::exp(1.0) + std::exp(2.0) + std::exp(3.0) + std::exp(4.0)))
            .epsilon(1e-6));

  // In place gives the same result.
  Tensor2 z = x;
  softmax_rows(z.data(), z.data(), 3, 4);
  CHECK((z == y));
}

TEST_CASE("softmax: forward and backward match PyTorch", "[softmax][parity]") {
  const Tensor2 x = testing::load_fixture<2>("attention/softmax_x");
  const Tensor2 grad_y = testing::load_fixture<2>("attention/softmax_grad_y");
  const std::size_t rows = x.shape(0), cols = x.shape(1);
  Tensor2 y = Tensor2::from_shape(x.shape()), grad_x = Tensor2::from_shape(x.shape());
  softmax_rows(x.data(), y.data(), rows, cols);
  softmax_rows_backward(y.data(), grad_y.data(), grad_x.data(), rows, cols);
  // The reference is float64 on the same float32 inputs; float32 reaches ~1e-6 here.
  const double err_y =
      testing::max_relative_error(y, testing::load_fixture<2>("attention/softmax_y"));
  const double err_dx =
      testing::max_relative_error(grad_x, testing::load_fixture<2>("attention/softmax_grad_x"));
  INFO("softmax max relative error: y " << err_y << ", grad_x " << err_dx);
  CHECK(err_y < 1e-5);
  CHECK(err_dx < 1e-4);
}

TEST_CASE("softmax: backward agrees with finite differences", "[softmax][gradcheck]") {
  Rng rng(11);
  const std::size_t rows = 3, cols = 6;
  Tensor2 x = Tensor2::from_shape({rows, cols}), probe = Tensor2::from_shape({rows, cols});
  rng.fill_normal(x, 0, 2);
  rng.fill_normal(probe, 0, 1);
  Tensor2 y = Tensor2::from_shape({rows, cols}), grad_x = Tensor2::from_shape({rows, cols});
  softmax_rows(x.data(), y.data(), rows, cols);
  softmax_rows_backward(y.data(), probe.data(), grad_x.data(), rows, cols);

  auto loss = [&] {
    Tensor2 out = Tensor2::from_shape({rows, cols});
    softmax_rows(x.data(), out.data(), rows, cols);
    return testing::dot_loss(out, probe);
  };
  // float32 forward, eps 1e-2: the truncation error of the central difference is ~eps² = 1e-4
  // of the third derivative (O(1) for softmax), rounding noise ~1e-7 / eps = 1e-5; gradients are
  // O(0.1). A score below 1e-2 leaves room for both; a wrong gradient scores O(1).
  const double tol = 1e-2;
  const auto rep = testing::check_gradient(x.data(), grad_x.data(), x.size(), loss, 1e-2f, 1e-3);
  INFO(rep.describe("grad_x"));
  CHECK(rep.worst < tol);

  // The check is sharp enough: the common mistake dx = y * dy (forgetting the row sum) fails it.
  Tensor2 wrong = Tensor2::from_shape({rows, cols});
  for (std::size_t i = 0; i < x.size(); ++i) wrong.data()[i] = y.data()[i] * probe.data()[i];
  CHECK(testing::check_gradient(x.data(), wrong.data(), x.size(), loss, 1e-2f, 1e-3).worst > 0.1);
}

TEST_CASE("exp_nonpositive is e^x to within 2 ulp on [-87, 0], and 0 below", "[softmax]") {
  // Every 997th float from 0 down to -87 (about a million of them), against e^x computed in
  // double and rounded once. For positive floats the bit patterns order like the values, so the
  // distance in units of the last place is the difference of the two results' bit patterns.
  auto bits = [](float f) {
    std::int32_t i;
    std::memcpy(&i, &f, sizeof i);
    return i;
  };
  int worst = 0;
  std::size_t checked = 0;
  for (std::int32_t magnitude = 0; magnitude <= bits(87.0f); magnitude += 997) {
    float x;
    std::memcpy(&x, &magnitude, sizeof x);
    x = -x;
    const float exact = static_cast<float>(std::exp(static_cast<double>(x)));
    worst = std::max(worst, std::abs(bits(exp_nonpositive(x)) - bits(exact)));
    ++checked;
  }
  CHECK(checked > 1000000);
  CHECK(worst <= 2);
  CHECK(exp_nonpositive(0.0f) == 1.0f);
  CHECK(exp_nonpositive(-88.0f) == 0.0f);
  CHECK(exp_nonpositive(-1e9f) == 0.0f);  // a masked score
  CHECK(std::isnan(exp_nonpositive(std::nanf(""))));
}

TEST_CASE("exp_shifted: every entry to within 2 ulp of e^(x - shift), and their sum", "[softmax]") {
  // The vectorised loop softmax runs, over a length that leaves a tail after the vector lanes,
  // with masked scores (-1e9) among the values.
  const std::size_t n = 1003;
  const float shift = 3.0f;
  std::vector<float> x(n), y(n);
  Rng rng(11);
  for (std::size_t j = 0; j < n; ++j) x[j] = j % 10 == 0 ? -1e9f : rng.uniform(-60.0f, shift);
  const float sum = exp_shifted(x.data(), shift, y.data(), n);
  double exact_sum = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    const double exact = std::exp(static_cast<double>(x[j] - shift));
    INFO("x = " << x[j]);
    REQUIRE(y[j] == Approx(exact).epsilon(2 * FLT_EPSILON).margin(1e-38));
    exact_sum += exact;
  }
  CHECK(sum == Approx(exact_sum).epsilon(1e-5));
}
