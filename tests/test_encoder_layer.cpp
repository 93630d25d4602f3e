// One encoder layer (chapter 08): x = Norm(x + SelfAttention(x)), then x = Norm(x + FFN(x)).
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "expected_trace.hpp"
#include "gradient_check.hpp"
#include "model_helpers.hpp"
#include "tfm/core/trace.hpp"
#include "tfm/model/encoder_layer.hpp"

using namespace tfm;
using testing::padded_ids;
using testing::random_normal;
using testing::same;
using testing::tiny_with_dropout;

TEST_CASE("EncoderLayer: every traced step has the right shape at the tiny and csdn sizes",
          "[encoder_layer][trace]") {
  struct Case {
    std::string preset;
    std::size_t batch, len;
  };
  // csdn: reference 000's test feeds src [32, 10] through d_model 512, 8 heads, d_ff 2048.
  for (const Case& k : {Case{"tiny", 2, 5}, Case{"csdn", 32, 10}}) {
    INFO("preset " << k.preset);
    const Config c = preset(k.preset);
    Rng rng(1);
    EncoderLayer layer(c, rng);
    const Tensor3 x = random_normal({k.batch, k.len, c.d_model}, rng);
    std::vector<std::size_t> pads(k.batch, 0);
    pads.back() = 2;
    const Mask mask = padding_mask(padded_ids(k.len, c.src_vocab_size, pads, rng), k.len);
    Tensor3 y;
    for (const bool training : {true, false}) {
      layer.set_training(training);
      trace::Capture capture;
      y = layer.forward(x, &mask);
      testing::ExpectedTrace expected;
      testing::encoder_layer_forward(expected, 0, c, k.batch, k.len, true, training);
      testing::check_trace(capture.text(), expected);
    }
    CHECK(y.shape() == x.shape());
    trace::Capture capture;
    CHECK(layer.backward(y).shape() == x.shape());
    testing::ExpectedTrace expected;
    testing::encoder_layer_backward(expected, 0, c, k.batch, k.len);
    testing::check_trace(capture.text(), expected);
  }
}

TEST_CASE("EncoderLayer: gradients agree with finite differences", "[encoder_layer][gradcheck]") {
  // Tiny sizes (B 2, S 5, d 16, 2 heads, d_ff 32), a padded source, dropout 0, every entry of x
  // and of every parameter. L = sum(y * probe), summed in double over a float32 forward.
  //
  // The ReLU's kinks are kept out of reach of every nudge (keep_relu_clear_of_kinks), so the
  // loss is smooth and two errors remain in a difference quotient: truncation, O(eps^2), and
  // float32 rounding of the forward, ~4e-6 absolute in L (|L| ~ 4), i.e. ~2e-6 / eps. The
  // extrapolated difference (model_helpers.hpp) removes the eps^2 term. Measured worst score
  // |analytic - numeric| / (1e-2 + |numeric|) over all 2,384 entries, by eps: extrapolated
  // 8e-2: 3.4e-3, 4e-2: 5.9e-3, 2e-2: 1.8e-2 (rounding); plain central difference 4e-2: 7.2e-3,
  // 2e-2: 4.3e-3, 1e-2: 1.4e-2. eps = 4e-2 extrapolated, as for the stacks and the whole model,
  // and the bound 2e-2; a wrong gradient (a missing residual path, one attention input
  // forgotten, a ReLU passing gradient through an "off" unit) is off by O(1).
  const float eps = 4e-2f;
  const double atol = 1e-2, tol = 2e-2;
  const Config c = tiny_with_dropout(0.0f);
  Rng rng(2);
  EncoderLayer layer(c, rng);
  ParameterList params = parameters_of(layer);
  testing::randomise_norms(params, rng);
  testing::keep_relu_clear_of_kinks(layer.ffn, layer.norm1.norm);
  Tensor3 x = random_normal({2, 5, c.d_model}, rng);
  const Tensor3 probe = random_normal({2, 5, c.d_model}, rng);
  const Mask mask = padding_mask(padded_ids(5, c.src_vocab_size, {0, 2}, rng), 5);

  layer.forward(x, &mask);
  const Tensor3 grad_x = layer.backward(probe);
  auto loss = [&] { return testing::dot_loss(layer.forward(x, &mask), probe); };
  auto rep =
      testing::check_gradient_extrapolated(x.data(), grad_x.data(), x.size(), loss, eps, atol);
  INFO(rep.describe("x"));
  CHECK(rep.worst < tol);
  for (const ParameterRef& p : params) {
    rep = testing::check_gradient_extrapolated(p.value, p.grad, p.size, loss, eps, atol);
    INFO(rep.describe(p.name));
    CHECK(rep.worst < tol);
  }
}

TEST_CASE("EncoderLayer: a padded position's content never reaches the real positions",
          "[encoder_layer][mask]") {
  // The padding mask gives every pad key the weight exactly 0 (exp(-1e9 - max) underflows to 0),
  // so changing what sits at the pad positions leaves every real position's output unchanged,
  // bit for bit; the pad positions themselves still change (they are queries like any other).
  const Config c = tiny_with_dropout(0.0f);
  Rng rng(3);
  EncoderLayer layer(c, rng);
  Tensor3 x = random_normal({2, 5, c.d_model}, rng);
  const Mask mask = padding_mask(padded_ids(5, c.src_vocab_size, {0, 2}, rng), 5);
  const Tensor3 before = layer.forward(x, &mask);
  const Tensor4 weights = layer.self_attn.attention_weights();  // [B, H, S, S]
  for (std::size_t h = 0; h < c.n_heads; ++h)
    for (std::size_t i = 0; i < 5; ++i)
      for (std::size_t j = 3; j < 5; ++j) CHECK(weights(1, h, i, j) == 0.0f);

  for (std::size_t j = 3; j < 5; ++j)
    for (std::size_t k = 0; k < c.d_model; ++k) x(1, j, k) += 5.0f;
  const Tensor3 after = layer.forward(x, &mask);
  bool real_unchanged = true, pads_changed = false;
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t i = 0; i < 5; ++i)
      for (std::size_t k = 0; k < c.d_model; ++k) {
        const bool pad = b == 1 && i >= 3, changed = after(b, i, k) != before(b, i, k);
        if (pad && changed) pads_changed = true;
        if (!pad && changed) real_unchanged = false;
      }
  CHECK(real_unchanged);
  CHECK(pads_changed);
}

TEST_CASE("EncoderLayer: dropout is reproducible in training and off in evaluation",
          "[encoder_layer][dropout]") {
  // The dropout seeds are drawn from the same Rng as the weights, and as many draws whatever p
  // is: layers built from equal seeds have equal weights, whatever their dropout.
  Rng input_rng(4);
  const Tensor3 x = random_normal({2, 5, 16}, input_rng);
  Rng r1(7), r2(7), r3(8), r0(7);
  EncoderLayer a(tiny_with_dropout(0.3f), r1), b(tiny_with_dropout(0.3f), r2),
      other(tiny_with_dropout(0.3f), r3), off(tiny_with_dropout(0.0f), r0);
  const Tensor3 first = a.forward(x, nullptr);
  CHECK(same(first, b.forward(x, nullptr)));  // same seed: same weights, same masks
  CHECK_FALSE(same(first, other.forward(x, nullptr)));
  CHECK_FALSE(same(first, off.forward(x, nullptr)));  // dropout did something in training
  CHECK_FALSE(same(first, a.forward(x, nullptr)));    // and draws new masks every call
  a.set_training(false);
  CHECK(same(a.forward(x, nullptr), off.forward(x, nullptr)));  // evaluation: no dropout
}

TEST_CASE("EncoderLayer: parameter names and count", "[encoder_layer]") {
  const Config c = preset("tiny");
  Rng rng(5);
  EncoderLayer layer(c, rng);
  const ParameterList params = parameters_of(layer);
  std::vector<std::string> names;
  for (const ParameterRef& p : params) names.push_back(p.name);
  const std::vector<std::string> expected = {
      "self_attn.w_q.weight", "self_attn.w_q.bias", "self_attn.w_k.weight", "self_attn.w_k.bias",
      "self_attn.w_v.weight", "self_attn.w_v.bias", "self_attn.w_o.weight", "self_attn.w_o.bias",
      "norm1.weight",         "norm1.bias",         "ffn.linear1.weight",   "ffn.linear1.bias",
      "ffn.linear2.weight",   "ffn.linear2.bias",   "norm2.weight",         "norm2.bias"};
  CHECK(names == expected);
  CHECK(params.at("ffn.linear1.weight").shape == std::vector<std::size_t>{c.d_ff, c.d_model});
  CHECK(params.count() == count::encoder_layer(c));

  const Tensor3 x = xt::zeros<float>({2, 5, 12});
  CHECK_THROWS_AS(layer.forward(x, nullptr), ShapeError);
}

TEST_CASE("EncoderLayer: output and every gradient match PyTorch", "[encoder_layer][parity]") {
  // tests/fixtures/make_transformer_fixtures.py, layer_fixtures(): the twin's EncoderLayer
  // (tools/reference_transformer.py) in float64 on the same float32 weights and inputs;
  // d_model 8, 2 heads, d_ff 16, biases, dropout 0, source sentence 1 ending in 2 pads.
  // Bound: |ours - torch| / (atol + |torch|) below 1e-4 for every entry; atol 1e-3 for the O(1)
  // activations, 1e-3 of the largest entry for the parameter gradients.
  const std::string dir = "transformer/layers/";
  Config c = preset("tiny");
  c.d_model = 8, c.d_ff = 16, c.dropout = 0.0f;
  Rng rng(0);
  EncoderLayer layer(c, rng);
  const ParameterList params = parameters_of(layer);
  testing::load_parameters(params, dir + "encoder.param.");
  const Tensor2 src_values = testing::load_fixture<2>(dir + "src");
  TokenIds src = TokenIds::from_shape(src_values.shape());
  std::transform(src_values.begin(), src_values.end(), src.begin(),
                 [](float v) { return static_cast<std::int32_t>(v); });
  const Mask mask = padding_mask(src, src.shape(1));

  const Tensor3 output = layer.forward(testing::load_fixture<3>(dir + "x"), &mask);
  const Tensor3 grad_x = layer.backward(testing::load_fixture<3>(dir + "encoder.grad_output"));
  CHECK(testing::max_relative_error(output, testing::load_fixture<3>(dir + "encoder.output"),
                                    1e-3) < 1e-4);
  CHECK(testing::max_relative_error(grad_x, testing::load_fixture<3>(dir + "encoder.grad.x"),
                                    1e-3) < 1e-4);
  std::string worst_name;
  const double worst = testing::parameter_gradient_error(params, dir + "encoder.grad.", worst_name);
  INFO("worst parameter gradient: " << worst_name << " " << worst);
  CHECK(worst < 1e-4);
}
