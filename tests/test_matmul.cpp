#include <catch2/catch.hpp>

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xview.hpp>

#include "fixtures.hpp"
#include "tfm/matmul.hpp"
#include "tfm/random.hpp"

using namespace tfm;

TEST_CASE("matmul agrees with xtensor-blas for every transpose combination", "[matmul]") {
  Rng rng(1);
  Tensor2 a = Tensor2::from_shape({5, 7}), b = Tensor2::from_shape({7, 3});
  rng.fill_normal(a, 0, 1);
  rng.fill_normal(b, 0, 1);
  const Tensor2 expected = xt::linalg::dot(a, b);
  const Tensor2 at = xt::transpose(a), bt = xt::transpose(b);
  CHECK(testing::max_relative_error(matmul(a, b), expected, 1e-5) < 1e-5);
  CHECK(testing::max_relative_error(matmul(at, b, Op::kTransposed), expected, 1e-5) < 1e-5);
  CHECK(testing::max_relative_error(matmul(a, bt, Op::kPlain, Op::kTransposed), expected, 1e-5) < 1e-5);
  CHECK(testing::max_relative_error(matmul(at, bt, Op::kTransposed, Op::kTransposed), expected, 1e-5) < 1e-5);
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
