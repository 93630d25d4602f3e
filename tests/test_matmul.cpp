#include <catch2/catch.hpp>
#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xview.hpp>

#include "fixtures.hpp"
#include "tfm/core/matmul.hpp"
#include "tfm/core/random.hpp"

using namespace tfm;

TEST_CASE("matmul agrees with xtensor-blas for every transpose combination", "[matmul]") {
  // One row (a decoded token) takes the matrix-vector path, more rows the matrix-matrix one.
  const std::size_t rows = GENERATE(5, 1);
  INFO("rows of a: " << rows);
  Rng rng(1);
  Tensor2 a = Tensor2::from_shape({rows, 7}), b = Tensor2::from_shape({7, 3});
  rng.fill_normal(a, 0, 1);
  rng.fill_normal(b, 0, 1);
  const Tensor2 expected = xt::linalg::dot(a, b);
  const Tensor2 at = xt::transpose(a), bt = xt::transpose(b);
  CHECK(testing::max_relative_error(matmul(a, b), expected, 1e-5) < 1e-5);
  CHECK(testing::max_relative_error(matmul(at, b, Op::kTransposed), expected, 1e-5) < 1e-5);
  CHECK(testing::max_relative_error(matmul(a, bt, Op::kPlain, Op::kTransposed), expected, 1e-5) <
        1e-5);
  CHECK(testing::max_relative_error(matmul(at, bt, Op::kTransposed, Op::kTransposed), expected,
                                    1e-5) < 1e-5);
}

TEST_CASE("matmul_accumulate adds to its target, one row or many", "[matmul]") {
  const std::size_t rows = GENERATE(4, 1);
  INFO("rows of the product: " << rows);
  Rng rng(4);
  // c [rows, 5] += aᵀ b over 2·3 positions, from a [2, 3, rows] and b [2, 3, 5].
  Tensor3 a = Tensor3::from_shape({2, 3, rows}), b = Tensor3::from_shape({2, 3, 5});
  Tensor2 c = Tensor2::from_shape({rows, 5});
  rng.fill_normal(a, 0, 1);
  rng.fill_normal(b, 0, 1);
  rng.fill_normal(c, 0, 1);
  const Tensor2 a_rows = xt::reshape_view(a, std::vector<std::size_t>{6, rows});
  const Tensor2 b_rows = xt::reshape_view(b, {6, 5});
  const Tensor2 expected = c + xt::linalg::dot(xt::transpose(a_rows), b_rows);
  matmul_accumulate(c, a, b, Op::kTransposed, Op::kPlain);
  CHECK(testing::max_relative_error(c, expected, 1e-5) < 1e-5);
}

TEST_CASE("batched matmul multiplies each [M, K] slice by its [K, N] slice", "[matmul]") {
  Rng rng(2);
  Tensor4 a = Tensor4::from_shape({2, 3, 4, 5}), b = Tensor4::from_shape({2, 3, 6, 5});
  rng.fill_normal(a, 0, 1);
  rng.fill_normal(b, 0, 1);
  const Tensor4 c = matmul(a, b, Op::kPlain, Op::kTransposed);
  REQUIRE(c.shape() == Tensor4::shape_type{2, 3, 4, 6});
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t h = 0; h < 3; ++h) {
      const Tensor2 ai = xt::view(a, i, h), bi = xt::view(b, i, h);
      const Tensor2 expected = xt::linalg::dot(ai, xt::transpose(bi));
      const Tensor2 got = xt::view(c, i, h);
      CHECK(testing::max_relative_error(got, expected, 1e-5) < 1e-5);
    }
}

TEST_CASE("matmul names both shapes when the inner dimensions differ", "[matmul]") {
  Tensor2 a = xt::zeros<float>({5, 7}), b = xt::zeros<float>({6, 3});
  CHECK_THROWS_AS(matmul(a, b), ShapeError);
  CHECK_THROWS_WITH(matmul(a, b), Catch::Contains("[5, 7]") && Catch::Contains("[6, 3]"));
  Tensor3 x = xt::zeros<float>({2, 3, 4}), y = xt::zeros<float>({3, 4, 3});
  CHECK_THROWS_WITH(matmul(x, y), Catch::Contains("batch sizes differ"));
}

TEST_CASE("matmul of positions by one matrix, the weight-gradient form and linear", "[matmul]") {
  Rng rng(3);
  Tensor3 x = Tensor3::from_shape({2, 3, 4}), grad_y = Tensor3::from_shape({2, 3, 5});
  Tensor2 w = Tensor2::from_shape({5, 4});
  Tensor1 bias = Tensor1::from_shape({5});
  for (auto* t : {&x, &grad_y}) rng.fill_normal(*t, 0, 1);
  rng.fill_normal(w, 0, 1);
  rng.fill_normal(bias, 0, 1);
  const Tensor2 x_rows = xt::reshape_view(x, {6, 4}), dy_rows = xt::reshape_view(grad_y, {6, 5});

  // y = x Wᵀ + b, every position one row
  const Tensor2 expected_y = xt::linalg::dot(x_rows, xt::transpose(w)) + bias;
  const Tensor2 y = xt::reshape_view(linear(x, w, bias), {6, 5});
  CHECK(testing::max_relative_error(y, expected_y, 1e-5) < 1e-5);
  const Tensor2 y_no_bias = xt::reshape_view(linear(x, w, Tensor1()), {6, 5});
  CHECK(testing::max_relative_error(y_no_bias, expected_y - bias, 1e-5) < 1e-5);
  const Tensor2 y_plain = xt::reshape_view(matmul(x, w, Op::kTransposed), {6, 5});
  CHECK(testing::max_relative_error(y_plain, expected_y - bias, 1e-5) < 1e-5);

  // dx = dy W
  const Tensor2 grad_x = xt::reshape_view(matmul(grad_y, w), {6, 4});
  CHECK(testing::max_relative_error(grad_x, xt::linalg::dot(dy_rows, w), 1e-5) < 1e-5);

  // dW += dyᵀ x, summed over all positions, on top of what dW held
  Tensor2 grad_w = xt::ones<float>({5, 4});
  matmul_accumulate(grad_w, grad_y, x, Op::kTransposed, Op::kPlain);
  const Tensor2 expected_dw = xt::linalg::dot(xt::transpose(dy_rows), x_rows) + 1.0f;
  CHECK(testing::max_relative_error(grad_w, expected_dw, 1e-5) < 1e-5);
  Tensor2 wrong = xt::zeros<float>({4, 5});
  CHECK_THROWS_AS(matmul_accumulate(wrong, grad_y, x, Op::kTransposed, Op::kPlain), ShapeError);

  // alpha scales the product
  Tensor4 a = Tensor4::from_shape({1, 2, 3, 4}), b = Tensor4::from_shape({1, 2, 4, 3});
  rng.fill_normal(a, 0, 1);
  rng.fill_normal(b, 0, 1);
  const Tensor4 half = matmul(a, b, Op::kPlain, Op::kPlain, 0.5f);
  const Tensor4 whole = matmul(a, b);
  CHECK(testing::max_relative_error(Tensor4(half * 2.0f), whole, 1e-6) < 1e-6);
}
