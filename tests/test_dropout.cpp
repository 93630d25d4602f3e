#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <xtensor/xmath.hpp>

#include "gradient_check.hpp"
#include "tfm/layers/dropout.hpp"

using namespace tfm;

namespace {
Tensor3 random_tensor(std::initializer_list<std::size_t> shape, std::uint64_t seed) {
  Rng rng(seed);
  Tensor3 t = Tensor3::from_shape(shape);
  rng.fill_normal(t, 0, 1);
  return t;
}
}  // namespace

TEST_CASE("Dropout: identity in evaluation and when p == 0", "[dropout]") {
  const Tensor3 x = random_tensor({2, 3, 4}, 1);
  Dropout eval(0.5f, 7);
  CHECK(eval.training());  // a new module trains, as in PyTorch
  eval.set_training(false);
  CHECK_FALSE(eval.training());
  CHECK((eval.forward(x) == x));
  CHECK((eval.backward(x) == x));
  CHECK(std::string(eval.mode()) == "dropout (evaluation: identity)");

  Dropout none(0.0f, 7);
  CHECK((none.forward(x) == x));
  CHECK((none.backward(x) == x));
  CHECK(std::string(none.mode()) == "dropout (p = 0: identity)");
  CHECK(std::string(Dropout(0.5f, 7).mode()) == "dropout (training)");

  CHECK_THROWS(Dropout(1.0f, 7));
  CHECK_THROWS(Dropout(-0.1f, 7));
}

TEST_CASE("Dropout: keeps about 1-p of the entries, scaled by 1/(1-p)", "[dropout]") {
  const float p = 0.3f;
  Dropout dropout(p, 42);
  const Tensor3 x = xt::ones<float>({8, 50, 250});  // 100,000 entries
  const Tensor3 y = dropout.forward(x);
  std::size_t kept = 0;
  for (float v : y) {
    if (v != 0.0f) {
      ++kept;
      CHECK(v == Approx(1.0f / (1.0f - p)).epsilon(1e-6));
    }
  }
  // Kept count ~ Binomial(n, 0.7): mean 70,000, standard deviation ~145. Six sigma is ~0.9%.
  const double fraction = double(kept) / double(x.size());
  CHECK(fraction == Approx(1.0 - p).margin(0.009));
  // Inverted dropout keeps the mean: E[y] = x.
  CHECK(xt::mean(y)() == Approx(1.0).margin(0.02));
}

TEST_CASE("Dropout: same seed same mask, backward uses forward's mask", "[dropout]") {
  const Tensor3 x = random_tensor({2, 5, 6}, 2);
  Dropout a(0.5f, 99), b(0.5f, 99), c(0.5f, 100);
  const Tensor3 ya = a.forward(x), yb = b.forward(x), yc = c.forward(x);
  CHECK((ya == yb));
  CHECK((ya != yc));
  CHECK((a.mask() == b.mask()));

  // A second forward draws a new mask.
  const Tensor3 ya2 = a.forward(x);
  CHECK((ya2 != ya));

  // dx = dy * mask of the LAST forward: zero exactly where that forward dropped.
  const Tensor3 grad_y = random_tensor({2, 5, 6}, 3);
  const Tensor3 grad_x = a.backward(grad_y);
  for (std::size_t i = 0; i < x.size(); ++i) {
    CHECK(grad_x.data()[i] == (a.mask().data()[i] ? grad_y.data()[i] / (1.0f - 0.5f) : 0.0f));
    CHECK((grad_x.data()[i] == 0.0f) == (ya2.data()[i] == 0.0f));
  }
  CHECK_THROWS_WITH(a.backward(Tensor3(xt::zeros<float>({2, 5, 7}))),
                    Catch::Contains("Dropout backward: grad_y has shape [2, 5, 7]"));
}

TEST_CASE("Dropout: backward agrees with finite differences (fixed mask)", "[dropout][gradcheck]") {
  Tensor3 x = random_tensor({2, 3, 4}, 4);
  const Tensor3 probe = random_tensor({2, 3, 4}, 5);
  Dropout dropout(0.25f, 17);
  dropout.forward(x);
  const Tensor3 grad_x = dropout.backward(probe);
  // A fresh module with the same seed draws the same mask, so the loss is a fixed linear function
  // of x: the central difference is exact up to float rounding (~1e-6 / eps).
  auto loss = [&] {
    Dropout same(0.25f, 17);
    return testing::dot_loss(same.forward(x), probe);
  };
  const auto rep = testing::check_gradient(x.data(), grad_x.data(), x.size(), loss, 1e-2f, 1e-3);
  INFO(rep.describe("grad_x"));
  CHECK(rep.worst < 1e-3);
}
