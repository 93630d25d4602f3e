#include <catch2/catch.hpp>
#include <cmath>
#include <iterator>
#include <string>
#include <tuple>

#include "fixtures.hpp"
#include "gradient_check.hpp"
#include "tfm/core/random.hpp"
#include "tfm/core/trace.hpp"
#include "tfm/layers/attention.hpp"

using namespace tfm;
using testing::random_normal;
using testing::to_mask;

TEST_CASE("attention: forward and backward match PyTorch", "[attention][parity]") {
  // Reference: PyTorch in float64 on the same float32 inputs (tests/fixtures/make_attention_fixtures.py).
  // The bound is 1e-4 relative (|a - b| / (1e-6 + |b|)). float32 reaches ~1e-7 on the weights and
  // 1e-6 to 2e-5 on the context and the gradients (sums with cancellation).
  const double tol = 1e-4;
  for (const std::string name : {"cross", "cross_masked", "self", "self_masked"}) {
    const std::string prefix = "attention/" + name + "_";
    const Tensor4 q = testing::load_fixture<4>(prefix + "q");
    const Tensor4 k = testing::load_fixture<4>(prefix + "k");
    const Tensor4 v = testing::load_fixture<4>(prefix + "v");
    const bool masked = name.find("masked") != std::string::npos;
    const Mask mask = masked ? to_mask(testing::load_fixture<3>(prefix + "mask")) : Mask();

    ScaledDotProductAttention attention;
    const Tensor4 context = attention.forward(q, k, v, masked ? &mask : nullptr);
    const auto grads = attention.backward(testing::load_fixture<4>(prefix + "grad_context"));

    struct Row {
      const char* tensor;
      const Tensor4& ours;
    };
    for (const Row& row :
         {Row{"context", context}, Row{"weights", attention.weights()}, Row{"grad_q", grads.query},
          Row{"grad_k", grads.key}, Row{"grad_v", grads.value}}) {
      const double err =
          testing::max_relative_error(row.ours, testing::load_fixture<4>(prefix + row.tensor));
      INFO(name << " " << row.tensor << ": max relative error " << err);
      CHECK(err < tol);
    }
  }
}

TEST_CASE("attention: masks give exact zeros, a fully masked row gives uniform weights",
          "[attention]") {
  // cross_masked: batch 0 blocks key 3 (padding), batch 1 blocks keys 2 and 3, and its query 2
  // is blocked from every key.
  const std::string prefix = "attention/cross_masked_";
  const Mask mask = to_mask(testing::load_fixture<3>(prefix + "mask"));
  ScaledDotProductAttention attention;
  attention.forward(testing::load_fixture<4>(prefix + "q"), testing::load_fixture<4>(prefix + "k"),
                    testing::load_fixture<4>(prefix + "v"), &mask);
  const Tensor4& w = attention.weights();
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t h = 0; h < 2; ++h)
      for (std::size_t i = 0; i < 3; ++i) {
        const bool fully_blocked = b == 1 && i == 2;
        double sum = 0;
        for (std::size_t j = 0; j < 4; ++j) {
          REQUIRE(std::isfinite(w(b, h, i, j)));
          sum += w(b, h, i, j);
          if (fully_blocked)
            CHECK(w(b, h, i, j) == 0.25f);  // all scores -1e9: uniform, not NaN
          else if (!mask(b, i, j))
            CHECK(w(b, h, i, j) == 0.0f);  // e^(-1e9 - max) underflows to exactly 0
        }
        CHECK(sum == Approx(1.0).epsilon(1e-6));
      }
  // The fully blocked query had no say in the scores: its gradient is exactly zero.
  Rng rng(8);
  const auto grads = attention.backward(random_normal<4>({2, 2, 3, 6}, rng));
  for (std::size_t h = 0; h < 2; ++h)
    for (std::size_t d = 0; d < 5; ++d) CHECK(grads.query(1, h, 2, d) == 0.0f);
}

TEST_CASE("attention: the trace reports every step with its shape", "[attention][trace]") {
  Rng rng(9);
  const Tensor4 q = random_normal<4>({2, 3, 4, 8}, rng), k = random_normal<4>({2, 3, 5, 8}, rng),
                v = random_normal<4>({2, 3, 5, 6}, rng);
  const Mask mask = xt::ones<std::uint8_t>({2, 4, 5});
  ScaledDotProductAttention attention;
  trace::Capture capture;
  attention.forward(q, k, v, &mask);
  attention.backward(random_normal<4>({2, 3, 4, 6}, rng));
  const auto lines = capture.lines();
  // "[Component] what   formula -> [shape]   (axes)"
  const char* expected[][2] = {
      {"scores", "S = Q K^T -> [2, 3, 4, 5]"},
      {"scale", "S = S / sqrt(d_k) -> [2, 3, 4, 5]"},
      {"mask", "S[blocked] = -1e9 -> [2, 3, 4, 5]"},
      {"softmax", "A = softmax(S) -> [2, 3, 4, 5]"},
      {"weighted sum", "C = A V -> [2, 3, 4, 6]"},
      {"backward", "dV = A^T dC -> [2, 3, 5, 6]"},
      {"backward", "dA = dC V^T -> [2, 3, 4, 5]"},
      {"backward", "dS = softmax'(dA) -> [2, 3, 4, 5]"},
      {"backward", "dQ = dS K / sqrt(d_k) -> [2, 3, 4, 8]"},
      {"backward", "dK = dS^T Q / sqrt(d_k) -> [2, 3, 5, 8]"},
  };
  REQUIRE(lines.size() == std::size(expected));
  for (std::size_t i = 0; i < lines.size(); ++i) {
    INFO(lines[i]);
    CHECK(lines[i].rfind(std::string("[ScaledDotProductAttention] ") + expected[i][0], 0) == 0);
    CHECK(lines[i].find(expected[i][1]) != std::string::npos);
  }
}

TEST_CASE("attention: shape errors name the shapes", "[attention]") {
  Rng rng(10);
  const Tensor4 q = random_normal<4>({2, 3, 4, 8}, rng), k = random_normal<4>({2, 3, 5, 8}, rng),
                v = random_normal<4>({2, 3, 5, 6}, rng);
  ScaledDotProductAttention attention;
  CHECK_THROWS_WITH(attention.backward(random_normal<4>({2, 3, 4, 6}, rng)),
                    Catch::Contains("backward called before forward"));
  CHECK_THROWS_AS(attention.forward(q, random_normal<4>({2, 3, 5, 7}, rng), v), ShapeError);
  CHECK_THROWS_WITH(attention.forward(q, random_normal<4>({2, 3, 5, 7}, rng), v),
                    "ScaledDotProductAttention: key has shape [2, 3, 5, 7], expected "
                    "[2, 3, *, 8] (batch, heads, len_k, d_k)");
  CHECK_THROWS_WITH(attention.forward(q, k, random_normal<4>({2, 3, 4, 6}, rng)),
                    "ScaledDotProductAttention: value has shape [2, 3, 4, 6], expected "
                    "[2, 3, 5, *] (batch, heads, len_k, d_v)");
  CHECK_THROWS_WITH(attention.forward(q, random_normal<4>({1, 3, 5, 8}, rng), v),
                    Catch::Contains("key has shape [1, 3, 5, 8], expected [2, 3, *, 8]"));
  const Mask wrong = xt::ones<std::uint8_t>({2, 5, 4});
  CHECK_THROWS_WITH(attention.forward(q, k, v, &wrong),
                    "ScaledDotProductAttention: mask has shape [2, 5, 4], expected [2, 4, 5] "
                    "(batch, len_q, len_k)");
  attention.forward(q, k, v);
  CHECK_THROWS_WITH(attention.backward(random_normal<4>({2, 3, 4, 8}, rng)),
                    Catch::Contains("grad_context has shape [2, 3, 4, 8], expected [2, 3, 4, 6]"));
}

TEST_CASE("attention: gradients agree with finite differences", "[attention][gradcheck]") {
  Rng rng(13);
  const std::size_t B = 2, H = 2, Lq = 3, Lk = 4, d_k = 5, d_v = 3;
  Tensor4 q = random_normal<4>({B, H, Lq, d_k}, rng), k = random_normal<4>({B, H, Lk, d_k}, rng),
          v = random_normal<4>({B, H, Lk, d_v}, rng);
  const Tensor4 probe = random_normal<4>({B, H, Lq, d_v}, rng);
  // Padding of the last key in batch 1, plus one fully blocked query (batch 0, query 1).
  Mask mask = xt::ones<std::uint8_t>({B, Lq, Lk});
  for (std::size_t i = 0; i < Lq; ++i) mask(1, i, Lk - 1) = 0;
  for (std::size_t j = 0; j < Lk; ++j) mask(0, 1, j) = 0;

  const Mask* masks[] = {nullptr, &mask};
  for (const Mask* m : masks) {
    ScaledDotProductAttention attention;
    attention.forward(q, k, v, m);
    const auto grads = attention.backward(probe);
    auto loss = [&] {
      ScaledDotProductAttention fresh;
      return testing::dot_loss(fresh.forward(q, k, v, m), probe);
    };
    // float32 forward, eps 1e-2: truncation error ~eps² times the third derivative (~1e-4),
    // rounding noise ~1e-7 / eps = 1e-5, against gradients of O(0.1-1); atol 1e-3 keeps near-zero
    // entries from dominating. A wrong formula (a missing 1/sqrt(d_k), a transposed product, the
    // softmax without its row sum) scores O(0.1-1) or more, far above 1e-2.
    const double tol = 1e-2;
    for (auto [name, values, analytic, n] :
         {std::tuple{"grad_q", q.data(), grads.query.data(), q.size()},
          std::tuple{"grad_k", k.data(), grads.key.data(), k.size()},
          std::tuple{"grad_v", v.data(), grads.value.data(), v.size()}}) {
      const auto rep = testing::check_gradient(values, analytic, n, loss, 1e-2f, 1e-3);
      INFO((m ? "masked " : "unmasked ") << rep.describe(name));
      CHECK(rep.worst < tol);
    }
  }
}
