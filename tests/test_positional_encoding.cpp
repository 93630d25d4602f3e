#include <catch2/catch.hpp>
#include <cmath>

#include "fixtures.hpp"
#include "tfm/core/trace.hpp"
#include "tfm/layers/positional_encoding.hpp"

using namespace tfm;

namespace {

// The paper's formula, written independently of the implementation: sin(pos / 10000^(2i/d)).
double formula(std::size_t pos, std::size_t column, std::size_t d_model) {
  const double i = double(column / 2);
  const double angle = double(pos) / std::pow(10000.0, 2.0 * i / double(d_model));
  return column % 2 == 0 ? std::sin(angle) : std::cos(angle);
}

}  // namespace

TEST_CASE("PositionalEncoding: table shape and values follow the formula",
          "[positional_encoding]") {
  const PositionalEncoding pe(5000, 512);
  REQUIRE(pe.table().shape() == Tensor2::shape_type{5000, 512});
  CHECK(pe.max_len() == 5000);
  CHECK(pe.d_model() == 512);
  // Row 0 is sin(0) = 0, cos(0) = 1, alternating.
  for (std::size_t j = 0; j < 512; ++j) CHECK(pe.table()(0, j) == (j % 2 == 0 ? 0.0f : 1.0f));
  // Row 1, column 0: sin(1); column 1: cos(1).
  CHECK(pe.table()(1, 0) == Approx(std::sin(1.0)).margin(1e-7));
  CHECK(pe.table()(1, 1) == Approx(std::cos(1.0)).margin(1e-7));
  // A spread of positions and columns, up to the last row, where a float angle would be off by 2e-4.
  double worst = 0.0;
  for (std::size_t pos : {1, 2, 7, 50, 333, 1000, 4096, 4999})
    for (std::size_t j : {0, 1, 2, 3, 10, 11, 100, 101, 254, 255, 256, 257, 400, 510, 511})
      worst = std::max(worst, std::abs(double(pe.table()(pos, j)) - formula(pos, j, 512)));
  // float32 storage: rounding to the nearest float is at most 2^-25 for |v| <= 1 (plus the
  // double-precision difference between pow here and exp(log) there, ~1e-13 at pos 4999).
  CHECK(worst <= std::ldexp(1.0, -25) + 1e-12);
}

TEST_CASE("PositionalEncoding: odd d_model ends with a sine column", "[positional_encoding]") {
  const PositionalEncoding pe(20, 5);
  REQUIRE(pe.table().shape() == Tensor2::shape_type{20, 5});
  for (std::size_t pos = 0; pos < 20; ++pos)
    for (std::size_t j = 0; j < 5; ++j)
      CHECK(pe.table()(pos, j) == Approx(formula(pos, j, 5)).margin(1e-7));
  CHECK_THROWS_AS(PositionalEncoding(0, 8), ShapeError);
  CHECK_THROWS_WITH(PositionalEncoding(8, 0), Catch::Contains("d_model 0"));
}

TEST_CASE("PositionalEncoding: matches PyTorch (reference 000's code, in double)",
          "[positional_encoding][parity]") {
  const Tensor2 expected = testing::load_fixture<2>("embedding/pe_table_64x16");
  const PositionalEncoding pe(64, 16);
  CHECK(testing::max_relative_error(pe.table(), expected, 1e-6) < 1e-6);
}

TEST_CASE("PositionalEncoding: add_to adds rows offset.. to every sequence",
          "[positional_encoding]") {
  const PositionalEncoding pe(10, 6);
  Tensor3 x = Tensor3::from_shape({2, 3, 6});
  for (std::size_t k = 0; k < x.size(); ++k) x.data()[k] = 0.25f * float(k);
  const Tensor3 original = x;

  trace::Capture capture;
  pe.add_to(x);  // offset 0
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t l = 0; l < 3; ++l)
      for (std::size_t j = 0; j < 6; ++j) CHECK(x(b, l, j) == original(b, l, j) + pe.table()(l, j));
  REQUIRE(capture.lines().size() == 1);
  CHECK(capture.lines()[0].rfind("[PositionalEncoding] add sin/cos table", 0) == 0);
  CHECK(capture.lines()[0].find("x -> [2, 3, 6]") != std::string::npos);

  // An incremental decoder's step t: a one-token input gets row t, not row 0.
  Tensor3 step = xt::zeros<float>({2, 1, 6});
  pe.add_to(step, 7);
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t j = 0; j < 6; ++j) CHECK(step(b, 0, j) == pe.table()(7, j));

  // The last rows fit exactly.
  Tensor3 tail = xt::zeros<float>({1, 3, 6});
  CHECK_NOTHROW(pe.add_to(tail, 7));
}

TEST_CASE("PositionalEncoding: too long a sequence or wrong width is a ShapeError",
          "[positional_encoding]") {
  const PositionalEncoding pe(10, 6);
  Tensor3 x = xt::zeros<float>({1, 11, 6});
  CHECK_THROWS_AS(pe.add_to(x), ShapeError);
  CHECK_THROWS_WITH(pe.add_to(x), Catch::Contains("length 11") && Catch::Contains("max_len 10"));
  Tensor3 y = xt::zeros<float>({1, 4, 6});
  CHECK_THROWS_WITH(pe.add_to(y, 7),
                    Catch::Contains("offset 7") && Catch::Contains("positions up to 10"));
  Tensor3 z = xt::zeros<float>({1, 4, 8});
  CHECK_THROWS_WITH(
      pe.add_to(z),
      Catch::Contains("PositionalEncoding: input has shape [1, 4, 8], expected [*, *, 6]"));
}
