#include <catch2/catch.hpp>
#include <cmath>

#include "fixtures.hpp"
#include "gradient_check.hpp"
#include "tfm/core/trace.hpp"
#include "tfm/layers/embedding.hpp"

using namespace tfm;

TEST_CASE("Embedding: looks up rows and scales them by sqrt(d_model)", "[embedding]") {
  Rng rng(1);
  Embedding embedding(5, 4, rng);
  REQUIRE(embedding.weight.value.shape() == Tensor2::shape_type{5, 4});
  CHECK(embedding.scale() == 2.0f);
  for (std::size_t v = 0; v < 5; ++v)
    for (std::size_t j = 0; j < 4; ++j) embedding.weight.value(v, j) = float(10 * v + j);

  const TokenIds ids = {{4, 0, 2}, {1, 1, 3}};
  trace::Capture capture;
  const Tensor3 x = embedding.forward(ids);
  REQUIRE(x.shape() == Tensor3::shape_type{2, 3, 4});
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t l = 0; l < 3; ++l)
      for (std::size_t j = 0; j < 4; ++j)
        CHECK(x(b, l, j) == 2.0f * float(10 * ids(b, l) + int(j)));
  REQUIRE(capture.lines().size() == 1);
  CHECK(capture.lines()[0].rfind("[Embedding] look up and scale by sqrt(d_model)", 0) == 0);
  CHECK(capture.lines()[0].find("x -> [2, 3, 4]") != std::string::npos);
  CHECK(capture.lines()[0].find("(batch, len, d_model)") != std::string::npos);

  ParameterList params = parameters_of(embedding);
  REQUIRE(params.size() == 1);
  CHECK(params.at("weight").shape == std::vector<std::size_t>{5, 4});
}

TEST_CASE("Embedding: initialised from N(0, 1) like nn.Embedding", "[embedding]") {
  Rng rng(2);
  Embedding embedding(200, 64, rng);
  double sum = 0.0, squares = 0.0;
  for (float v : embedding.weight.value) sum += v, squares += double(v) * v;
  const double n = double(embedding.weight.value.size());
  const double mean = sum / n, std = std::sqrt(squares / n - mean * mean);
  // 12,800 samples: the standard error of the mean is 0.009, of the std about 0.006.
  CHECK(std::abs(mean) < 0.04);
  CHECK(std::abs(std - 1.0) < 0.03);
  CHECK(embedding.scale() == Approx(8.0f));
}

TEST_CASE("Embedding: ids outside the vocabulary name the id, position and vocabulary",
          "[embedding]") {
  Rng rng(1);
  Embedding embedding(10, 4, rng);
  CHECK_THROWS_AS(embedding.forward(TokenIds{{1, 2}, {3, 10}}), std::out_of_range);
  CHECK_THROWS_WITH(embedding.forward(TokenIds{{1, 2}, {3, 10}}),
                    "Embedding: token id 10 at position [1, 1] is outside the vocabulary [0, 10)");
  CHECK_THROWS_WITH(embedding.forward(TokenIds{{-1}}),
                    Catch::Contains("token id -1 at position [0, 0]"));
}

TEST_CASE("Embedding: repeated ids add up their gradients exactly", "[embedding]") {
  Rng rng(1);
  Embedding embedding(4, 4, rng);  // sqrt(4) = 2: every product below is exact in float
  const TokenIds ids = {{1, 1, 2}, {1, 0, 2}};
  embedding.forward(ids);
  Tensor3 grad_y = Tensor3::from_shape({2, 3, 4});
  for (std::size_t k = 0; k < grad_y.size(); ++k) grad_y.data()[k] = 0.25f * float(k);
  embedding.backward(grad_y);
  for (std::size_t j = 0; j < 4; ++j) {
    CHECK(embedding.weight.grad(0, j) == 2.0f * grad_y(1, 1, j));
    CHECK(embedding.weight.grad(1, j) ==
          2.0f * (grad_y(0, 0, j) + grad_y(0, 1, j) + grad_y(1, 0, j)));
    CHECK(embedding.weight.grad(2, j) == 2.0f * (grad_y(0, 2, j) + grad_y(1, 2, j)));
    CHECK(embedding.weight.grad(3, j) == 0.0f);  // id 3 was not used
  }

  // A table shared by source and target: one backward per input, with that input's ids; the
  // gradients accumulate on top of what is there.
  const Tensor2 before = embedding.weight.grad;
  const TokenIds target = {{3}};
  Tensor3 dy_target = xt::ones<float>({1, 1, 4});
  embedding.forward(target);
  embedding.backward(target, dy_target);
  for (std::size_t j = 0; j < 4; ++j) {
    CHECK(embedding.weight.grad(3, j) == 2.0f);
    CHECK(embedding.weight.grad(1, j) == before(1, j));
  }
  CHECK_THROWS_WITH(
      embedding.backward(Tensor3(xt::zeros<float>({2, 3, 4}))),
      Catch::Contains("Embedding backward: grad_y has shape [2, 3, 4], expected [1, 1, 4]"));
}

TEST_CASE("Embedding: gradient agrees with finite differences", "[embedding][gradcheck]") {
  Rng rng(5);
  Embedding embedding(6, 5, rng);
  const TokenIds ids = {{0, 3, 3, 5}, {2, 3, 0, 1}};
  Tensor3 probe = Tensor3::from_shape({2, 4, 5});
  rng.fill_normal(probe, 0, 1);
  embedding.forward(ids);
  embedding.backward(probe);
  auto loss = [&] { return testing::dot_loss(embedding.forward(ids), probe); };
  // The loss is linear in every entry, so the central difference has no truncation error;
  // what remains is float rounding, ~1e-6 / 1e-2. A wrong gradient is off by O(1).
  const auto rep =
      testing::check_gradient(embedding.weight.value.data(), embedding.weight.grad.data(),
                              embedding.weight.value.size(), loss, 1e-2f, 1e-3);
  INFO(rep.describe("weight"));
  CHECK(rep.worst < 1e-3);
}

TEST_CASE("Embedding: forward and gradient match PyTorch", "[embedding][parity]") {
  const Tensor2 weight = testing::load_fixture<2>("embedding/weight");
  const Tensor2 id_values = testing::load_fixture<2>("embedding/ids");
  const Tensor3 output = testing::load_fixture<3>("embedding/output");
  const Tensor3 grad_y = testing::load_fixture<3>("embedding/grad_y");
  const Tensor2 weight_grad = testing::load_fixture<2>("embedding/weight_grad");

  Rng rng(0);
  Embedding embedding(weight.shape(0), weight.shape(1), rng);
  embedding.weight.value = weight;
  TokenIds ids = TokenIds::from_shape({id_values.shape(0), id_values.shape(1)});
  for (std::size_t k = 0; k < ids.size(); ++k)
    ids.data()[k] = static_cast<std::int32_t>(id_values.data()[k]);

  const Tensor3 x = embedding.forward(ids);
  CHECK(testing::max_relative_error(x, output) < 1e-6);
  embedding.backward(grad_y);
  // PyTorch may sum repeated ids in another order: a few float roundings apart (measured 2e-7).
  CHECK(testing::max_relative_error(embedding.weight.grad, weight_grad, 1e-5) < 1e-6);
}
