#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "gradient_check.hpp"
#include "tfm/core/trace.hpp"
#include "tfm/layers/multi_head_attention.hpp"

using namespace tfm;
using testing::load_as;
using testing::random_normal;
using testing::relative_error;
using testing::to_mask;

namespace {

// The causal AND padding mask of the fixtures' self-attention case, built by hand.
Mask causal_padding_mask(std::size_t batch, std::size_t len, std::size_t padded_in_last) {
  Mask mask = xt::zeros<std::uint8_t>({batch, len, len});
  for (std::size_t b = 0; b < batch; ++b)
    for (std::size_t i = 0; i < len; ++i)
      for (std::size_t j = 0; j <= i; ++j)
        mask(b, i, j) = !(b + 1 == batch && j >= len - padded_in_last);
  return mask;
}

}  // namespace

TEST_CASE("split_heads / concat_heads: view + transpose, and each other's inverse", "[mha]") {
  Rng rng(1);
  const Tensor3 x = random_normal({2, 3, 8}, rng);
  const Tensor4 heads = split_heads(x, 4);
  REQUIRE(heads.shape() == Tensor4::shape_type{2, 4, 3, 2});
  // x.view(B, L, H, d_k).transpose(1, 2): heads[b, h, l, j] = x[b, l, h * d_k + j]
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t h = 0; h < 4; ++h)
      for (std::size_t l = 0; l < 3; ++l)
        for (std::size_t j = 0; j < 2; ++j) CHECK(heads(b, h, l, j) == x(b, l, h * 2 + j));
  const bool round_trip = concat_heads(heads) == x;  // (xtensor's == inside CHECK confuses Catch)
  CHECK(round_trip);
  CHECK_THROWS_AS(split_heads(x, 3), ShapeError);
}

TEST_CASE("MultiHeadAttention: forward and backward match PyTorch", "[mha][parity]") {
  // Reference: tests/fixtures/make_mha_fixtures.py, reference 000's module in float64 on the same
  // float32 inputs and weights. B = 2, d_model = 8, 2 heads; self-attention over 4 positions,
  // cross-attention from 3 queries to a memory of 4.
  // Bound, for every entry of every tensor: |ours - torch| / (atol + |torch|) < 1e-4 with
  // atol = 1e-3. The tensors' largest entries are 0.3 .. 4, so this is a relative bound of 1e-4
  // wherever |torch| >= 1e-3 and an absolute bound of 1e-7 below; some entries are 0 in exact
  // arithmetic (all of d b_K, see below) and come out as float32 rounding noise, ~1e-8.
  // Reached: at most 3.4e-5 (on entries below 1e-3); 2e-7 for the attention weights.
  const double tol = 1e-4, atol = 1e-3;
  for (const bool bias : {true, false}) {
    for (const std::string kind : {"self_masked", "self_unmasked", "cross"}) {
      const std::string name = kind + (bias ? "_bias" : "_nobias");
      const std::string prefix = "mha/" + name + ".";
      const bool self = kind != "cross";
      const bool masked = kind != "self_unmasked";
      Rng rng(0);
      MultiHeadAttention mha(8, 2, bias, rng);
      ParameterList params = parameters_of(mha);
      // Same names as PyTorch's state_dict, so every weight is found by its name.
      REQUIRE(params.size() == (bias ? 8u : 4u));
      for (const ParameterRef& p : params) {
        const xt::xarray<float> value = load_as(prefix + p.name, p.shape);
        std::copy(value.begin(), value.end(), p.value);
      }

      const Tensor3 query_input = testing::load_fixture<3>(prefix + (self ? "x" : "query_input"));
      const Tensor3 memory = self ? query_input : testing::load_fixture<3>(prefix + "memory");
      const Mask mask = masked ? to_mask(testing::load_fixture<3>(prefix + "mask")) : Mask();
      const Tensor3 output = mha.forward(query_input, memory, masked ? &mask : nullptr);
      const MultiHeadAttention::Grads grads =
          mha.backward(testing::load_fixture<3>(prefix + "grad_output"));

      std::vector<std::pair<std::string, double>> errors;
      errors.emplace_back("output", testing::max_relative_error(
                                        output, testing::load_fixture<3>(prefix + "output"), atol));
      errors.emplace_back("weights", testing::max_relative_error(
                                         mha.attention_weights(),
                                         testing::load_fixture<4>(prefix + "weights"), atol));
      if (self) {
        // The one input reached the output through W_Q and through W_K, W_V: its gradient is the
        // sum.
        const Tensor3 grad_x = grads.query_input + grads.memory;
        errors.emplace_back(
            "grad.x",
            testing::max_relative_error(grad_x, testing::load_fixture<3>(prefix + "grad.x"), atol));
      } else {
        errors.emplace_back(
            "grad.query_input",
            testing::max_relative_error(
                grads.query_input, testing::load_fixture<3>(prefix + "grad.query_input"), atol));
        errors.emplace_back(
            "grad.memory",
            testing::max_relative_error(grads.memory,
                                        testing::load_fixture<3>(prefix + "grad.memory"), atol));
      }
      for (const ParameterRef& p : params)
        errors.emplace_back(
            "grad." + p.name,
            relative_error(p.grad, load_as(prefix + "grad." + p.name, p.shape), atol));

      for (const auto& [tensor, err] : errors) {
        INFO(name << " " << tensor << ": max relative error " << err);
        CHECK(err < tol);
      }
    }
  }
}

TEST_CASE("MultiHeadAttention: the key bias b_K never gets a gradient", "[mha]") {
  // Score (i, j) = q_i . (W_K m_j + b_K) / sqrt(d_k): the bias adds q_i . b_K / sqrt(d_k) to every
  // score of row i, and softmax ignores a constant added to a whole row. So d b_K = 0 exactly
  // (b_V and b_Q do matter); float32 leaves only rounding noise.
  Rng rng(9);
  MultiHeadAttention mha(8, 2, true, rng);
  const Tensor3 x = random_normal({2, 4, 8}, rng), probe = random_normal({2, 4, 8}, rng);
  const Mask mask = causal_padding_mask(2, 4, 1);
  mha.forward(x, x, &mask);
  mha.backward(probe);
  const float largest_bk = xt::amax(xt::abs(mha.w_k.bias.grad))();
  const float largest_bq = xt::amax(xt::abs(mha.w_q.bias.grad))();
  const float largest_bv = xt::amax(xt::abs(mha.w_v.bias.grad))();
  INFO("max |d b_K| = " << largest_bk << ", max |d b_Q| = " << largest_bq
                        << ", max |d b_V| = " << largest_bv);
  CHECK(largest_bk < 1e-5f * largest_bq);
  CHECK(largest_bk < 1e-5f * largest_bv);
}

TEST_CASE("MultiHeadAttention: gradients agree with finite differences", "[mha][gradcheck]") {
  // Every parameter and both inputs, for masked self-attention (padding AND causal) and for
  // masked cross-attention (padding of the memory), with bias.
  //
  // Loss L = sum(output * probe). The forward runs in float32 and the loss is summed in double.
  // With eps = 1e-2 the central difference has a truncation error ~eps^2 |L'''| / 6 ~ 1e-5 and a
  // rounding error ~(1e-7 * |L| terms) / eps ~ 1e-5..1e-4. Scored with atol = 1e-2 in the
  // denominator (entries near 0 are judged absolutely), a correct gradient reaches ~1e-3 (measured:
  // 0.9e-3 self, 1.1e-3 cross), hence the bound 5e-3; a wrong one (a missing term, a transposed
  // product, a missing 1/sqrt(d_k)) is off by O(1).
  const float eps = 1e-2f;
  const double atol = 1e-2, tol = 5e-3;
  for (const bool self : {true, false}) {
    Rng rng(11);
    const std::size_t B = 2, Lq = self ? 4 : 3, Lk = 4, d = 8;
    MultiHeadAttention mha(d, 2, true, rng);
    Tensor3 query_input = random_normal({B, Lq, d}, rng);
    Tensor3 memory = self ? query_input : random_normal({B, Lk, d}, rng);
    const Tensor3 probe = random_normal({B, Lq, d}, rng);
    Mask mask = self ? causal_padding_mask(B, Lk, 1) : Mask(xt::ones<std::uint8_t>({B, Lq, Lk}));
    if (!self)
      mask(1, 0, 3) = mask(1, 1, 3) = mask(1, 2, 3) = 0;  // last memory position is padding

    mha.forward(query_input, memory, &mask);
    const MultiHeadAttention::Grads grads = mha.backward(probe);

    // Self-attention: the input is one tensor, fed to all three projections; perturbing it
    // checks the sum of the two gradients.
    auto loss = [&] {
      return testing::dot_loss(mha.forward(query_input, self ? query_input : memory, &mask), probe);
    };
    const std::string kind = self ? "self: " : "cross: ";
    if (self) {
      const Tensor3 grad_x = grads.query_input + grads.memory;
      const auto rep = testing::check_gradient(query_input.data(), grad_x.data(), grad_x.size(),
                                               loss, eps, atol);
      INFO(rep.describe(kind + "x"));
      CHECK(rep.worst < tol);
    } else {
      auto rep = testing::check_gradient(query_input.data(), grads.query_input.data(),
                                         query_input.size(), loss, eps, atol);
      INFO(rep.describe(kind + "query_input"));
      CHECK(rep.worst < tol);
      rep = testing::check_gradient(memory.data(), grads.memory.data(), memory.size(), loss, eps,
                                    atol);
      INFO(rep.describe(kind + "memory"));
      CHECK(rep.worst < tol);
    }
    for (const ParameterRef& p : parameters_of(mha)) {
      const auto rep = testing::check_gradient(p.value, p.grad, p.size, loss, eps, atol);
      INFO(rep.describe(kind + p.name));
      CHECK(rep.worst < tol);
    }
  }
}

TEST_CASE("MultiHeadAttention: the causal mask stops every gradient from the future", "[mha]") {
  // Only output position 0 receives a gradient. Position 0 may attend to key 0 alone, so nothing
  // after position 0 can have influenced it: every later row of both input gradients is exactly 0.
  Rng rng(5);
  const std::size_t B = 2, L = 4, d = 8;
  MultiHeadAttention mha(d, 2, true, rng);
  const Tensor3 x = random_normal({B, L, d}, rng);
  const Mask mask = causal_padding_mask(B, L, 0);
  mha.forward(x, x, &mask);
  Tensor3 grad_output = xt::zeros<float>({B, L, d});
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t j = 0; j < d; ++j) grad_output(b, 0, j) = 1.0f;
  const auto grads = mha.backward(grad_output);
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t i = 0; i < L; ++i)
      for (std::size_t j = 0; j < d; ++j) {
        if (i == 0) continue;
        CHECK(grads.query_input(b, i, j) == 0.0f);
        CHECK(grads.memory(b, i, j) == 0.0f);
      }
  CHECK(grads.memory(0, 0, 0) != 0.0f);
}

TEST_CASE("MultiHeadAttention: shapes, parameters and the trace", "[mha][trace]") {
  Rng rng(2);
  MultiHeadAttention mha(16, 4, false, rng);
  CHECK(mha.n_heads() == 4);
  CHECK(mha.d_k() == 4);
  ParameterList params = parameters_of(mha);
  CHECK(params.size() == 4);  // no biases
  CHECK(params.count() == 4 * 16 * 16);
  CHECK(params.at("w_o.weight").shape == std::vector<std::size_t>{16, 16});

  const Tensor3 queries = random_normal({2, 5, 16}, rng), memory = random_normal({2, 7, 16}, rng);
  std::vector<std::string> lines;
  Tensor3 out;
  {
    trace::Capture capture;
    out = mha.forward(queries, memory);
    mha.backward(out);
    lines = capture.lines();
  }
  REQUIRE(out.shape() == Tensor3::shape_type{2, 5, 16});
  CHECK(mha.attention_weights().shape() == Tensor4::shape_type{2, 4, 5, 7});
  auto has = [&](const std::string& a, const std::string& b) {
    for (const std::string& line : lines)
      if (line.find(a) != std::string::npos && line.find(b) != std::string::npos) return true;
    return false;
  };
  CHECK(has("[MultiHeadAttention] project queries", "Q -> [2, 5, 16]"));
  CHECK(has("[MultiHeadAttention] split heads", "Q -> [2, 4, 5, 4]"));
  CHECK(has("[MultiHeadAttention] split heads", "K -> [2, 4, 7, 4]"));
  CHECK(has("[ScaledDotProductAttention]", "-> [2, 4, 5, 7]"));  // nested: the weights of each head
  CHECK(has("[MultiHeadAttention] concat heads", "concat -> [2, 5, 16]"));
  CHECK(has("[MultiHeadAttention] output projection", "output -> [2, 5, 16]"));
  CHECK(has("[MultiHeadAttention] backward concat", "grad_context -> [2, 4, 5, 4]"));
  CHECK(has("[MultiHeadAttention] backward W_Q", "grad_query_input -> [2, 5, 16]"));
  CHECK(has("[MultiHeadAttention] backward W_K, W_V", "grad_memory -> [2, 7, 16]"));
}

TEST_CASE("MultiHeadAttention: clear errors for sizes that do not fit", "[mha][errors]") {
  Rng rng(3);
  CHECK_THROWS_WITH(MultiHeadAttention(10, 3, true, rng),
                    Catch::Contains("d_model (10)") && Catch::Contains("n_heads (3)"));
  CHECK_THROWS_AS(MultiHeadAttention(8, 0, true, rng), std::invalid_argument);

  MultiHeadAttention mha(8, 2, true, rng);
  CHECK_THROWS_WITH(mha.backward(xt::zeros<float>({2, 3, 8})),
                    Catch::Contains("backward called before forward"));
  const Tensor3 q = xt::zeros<float>({2, 3, 8});
  CHECK_THROWS_AS(mha.forward(q, Tensor3(xt::zeros<float>({2, 4, 6}))), ShapeError);
  CHECK_THROWS_WITH(mha.forward(q, Tensor3(xt::zeros<float>({2, 4, 6}))),
                    Catch::Contains("memory has shape [2, 4, 6], expected [*, *, 8]"));
  CHECK_THROWS_WITH(mha.forward(Tensor3(xt::zeros<float>({2, 3, 6})), q),
                    Catch::Contains("query_input has shape [2, 3, 6], expected [*, *, 8]"));
  CHECK_THROWS_AS(mha.forward(q, Tensor3(xt::zeros<float>({3, 4, 8}))), ShapeError);
  CHECK_THROWS_WITH(mha.forward(q, Tensor3(xt::zeros<float>({3, 4, 8}))),
                    Catch::Contains("batch sizes differ: query_input [2, 3, 8], memory [3, 4, 8]"));
  const Mask wrong = xt::ones<std::uint8_t>({2, 4, 3});  // [B, Lk, Lq] instead of [B, Lq, Lk]
  CHECK_THROWS_AS(mha.forward(q, Tensor3(xt::zeros<float>({2, 4, 8})), &wrong), ShapeError);
  CHECK_THROWS_WITH(
      mha.forward(q, Tensor3(xt::zeros<float>({2, 4, 8})), &wrong),
      Catch::Contains("mask has shape [2, 4, 3], expected [2, 3, 4] (batch, len_q, len_k)"));
  mha.forward(q, q);
  CHECK_THROWS_WITH(mha.backward(xt::zeros<float>({2, 4, 8})),
                    Catch::Contains("grad_output has shape [2, 4, 8], expected [2, 3, 8]"));
}
