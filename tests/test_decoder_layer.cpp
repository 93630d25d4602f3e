// One decoder layer (chapter 08): masked self-attention, cross-attention over the encoder's
// output (memory), feed-forward network, each wrapped in Add & Norm.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "expected_trace.hpp"
#include "gradient_check.hpp"
#include "model_helpers.hpp"
#include "tfm/core/trace.hpp"
#include "tfm/model/decoder_layer.hpp"

using namespace tfm;
using testing::padded_ids;
using testing::random_normal;
using testing::same;
using testing::tiny_with_dropout;

namespace {

// The masks of a batch whose target sentence 1 ends in 1 pad and source sentence 1 in 2 pads.
struct Masks {
  Mask self, cross;
};
Masks make_test_masks(std::size_t T, std::size_t S, std::size_t batch, const Config& c, Rng& rng) {
  std::vector<std::size_t> tgt_pads(batch, 0), src_pads(batch, 0);
  tgt_pads.back() = 1;
  src_pads.back() = 2;
  return {decoder_self_mask(padded_ids(T, c.tgt_vocab_size, tgt_pads, rng)),
          padding_mask(padded_ids(S, c.src_vocab_size, src_pads, rng), T)};
}

}  // namespace

TEST_CASE("DecoderLayer: every traced step has the right shape at the tiny and csdn sizes",
          "[decoder_layer][trace]") {
  struct Case {
    std::string preset;
    std::size_t batch, tgt_len, src_len;
  };
  // csdn: reference 000's test, trg [32, 20] reading an encoder output of src [32, 10].
  for (const Case& k : {Case{"tiny", 2, 6, 5}, Case{"csdn", 32, 20, 10}}) {
    INFO("preset " << k.preset);
    const Config c = preset(k.preset);
    Rng rng(1);
    DecoderLayer layer(c, rng);
    const Tensor3 x = random_normal({k.batch, k.tgt_len, c.d_model}, rng);
    const Tensor3 memory = random_normal({k.batch, k.src_len, c.d_model}, rng);
    const Masks masks = make_test_masks(k.tgt_len, k.src_len, k.batch, c, rng);
    Tensor3 y;
    for (const bool training : {true, false}) {
      layer.set_training(training);
      trace::Capture capture;
      y = layer.forward(x, memory, &masks.self, &masks.cross);
      testing::ExpectedTrace expected;
      testing::decoder_layer_forward(expected, 0, c, k.batch, k.tgt_len, k.src_len, training);
      testing::check_trace(capture.text(), expected);
    }
    CHECK(y.shape() == x.shape());
    trace::Capture capture;
    const DecoderLayer::Grads grads = layer.backward(y);
    testing::ExpectedTrace expected;
    testing::decoder_layer_backward(expected, 0, c, k.batch, k.tgt_len, k.src_len);
    testing::check_trace(capture.text(), expected);
    CHECK(grads.x.shape() == x.shape());
    CHECK(grads.memory.shape() == memory.shape());
  }
}

TEST_CASE("DecoderLayer: gradients agree with finite differences (memory included)",
          "[decoder_layer][gradcheck]") {
  // Tiny sizes (B 2, T 6, S 5, d 16, 2 heads, d_ff 32), padded target and source, dropout 0,
  // every entry of x, of memory (the encoder output: its gradient is what the decoder sends back
  // to the encoder) and of every parameter. L = sum(y * probe), summed in double.
  //
  // As for the encoder layer (test_encoder_layer.cpp): the ReLU's kinks kept out of reach, the
  // extrapolated difference at eps = 4e-2. Measured worst score over all 3,696 entries, by eps:
  // extrapolated 8e-2: 4.7e-3, 4e-2: 9.5e-3, 2e-2: 2.6e-2 (rounding, in the attention weights'
  // smallest gradients); plain central difference 4e-2: 2.1e-2 (truncation, ffn.linear2.weight),
  // 2e-2: 7.3e-3, 1e-2: 2.0e-2. Hence the bound 2e-2; a wrong gradient is off by O(1).
  const float eps = 4e-2f;
  const double atol = 1e-2, tol = 2e-2;
  const Config c = tiny_with_dropout(0.0f);
  Rng rng(2);
  DecoderLayer layer(c, rng);
  ParameterList params = parameters_of(layer);
  testing::randomise_norms(params, rng);
  testing::keep_relu_clear_of_kinks(layer.ffn, layer.norm2.norm);
  Tensor3 x = random_normal({2, 6, c.d_model}, rng);
  Tensor3 memory = random_normal({2, 5, c.d_model}, rng);
  const Tensor3 probe = random_normal({2, 6, c.d_model}, rng);
  const Masks masks = make_test_masks(6, 5, 2, c, rng);

  layer.forward(x, memory, &masks.self, &masks.cross);
  const DecoderLayer::Grads grads = layer.backward(probe);
  auto loss = [&] {
    return testing::dot_loss(layer.forward(x, memory, &masks.self, &masks.cross), probe);
  };
  auto rep =
      testing::check_gradient_extrapolated(x.data(), grads.x.data(), x.size(), loss, eps, atol);
  INFO(rep.describe("x"));
  CHECK(rep.worst < tol);
  rep = testing::check_gradient_extrapolated(memory.data(), grads.memory.data(), memory.size(),
                                             loss, eps, atol);
  INFO(rep.describe("memory"));
  CHECK(rep.worst < tol);
  for (const ParameterRef& p : params) {
    rep = testing::check_gradient_extrapolated(p.value, p.grad, p.size, loss, eps, atol);
    INFO(rep.describe(p.name));
    CHECK(rep.worst < tol);
  }
}

TEST_CASE("DecoderLayer: a later position never changes an earlier output",
          "[decoder_layer][mask]") {
  // Changing the input at position k changes the outputs at k and after, and leaves every
  // output before k exactly as it was: the causal mask gives the future the weight 0, and
  // everything else in the layer works on one position at a time.
  const Config c = tiny_with_dropout(0.0f);
  Rng rng(3);
  DecoderLayer layer(c, rng);
  const std::size_t T = 6, S = 5;
  const Tensor3 x = random_normal({2, T, c.d_model}, rng);
  const Tensor3 memory = random_normal({2, S, c.d_model}, rng);
  const Mask self_mask = subsequent_mask(2, T);
  const Mask cross_mask = xt::ones<std::uint8_t>({std::size_t(2), T, S});
  const Tensor3 before = layer.forward(x, memory, &self_mask, &cross_mask);
  for (std::size_t k = 0; k < T; ++k) {
    Tensor3 changed = x;
    for (std::size_t j = 0; j < c.d_model; ++j) changed(0, k, j) += 1.0f;
    const Tensor3 after = layer.forward(changed, memory, &self_mask, &cross_mask);
    for (std::size_t i = 0; i < T; ++i) {
      bool equal = true;
      for (std::size_t j = 0; j < c.d_model; ++j)
        equal = equal && after(0, i, j) == before(0, i, j);
      INFO("changed position " << k << ", output position " << i);
      CHECK(equal == (i < k));
    }
  }
}

TEST_CASE("DecoderLayer: no attention and no gradient for the source's padding",
          "[decoder_layer][mask]") {
  // Cross-attention gives every pad key of the source the weight exactly 0, so the gradient
  // the decoder sends back to those memory rows is exactly 0 too (dK and dV of a key with
  // weight 0 are 0).
  const Config c = tiny_with_dropout(0.0f);
  Rng rng(4);
  DecoderLayer layer(c, rng);
  const std::size_t T = 6, S = 5;
  const Tensor3 x = random_normal({2, T, c.d_model}, rng);
  const Tensor3 memory = random_normal({2, S, c.d_model}, rng);
  const Masks masks = make_test_masks(T, S, 2, c, rng);  // source sentence 1: keys 3, 4 are pads
  layer.forward(x, memory, &masks.self, &masks.cross);
  const Tensor4& weights = layer.cross_attn.attention_weights();  // [B, H, T, S]
  REQUIRE(weights.shape() == Tensor4::shape_type{2, c.n_heads, T, S});
  bool pads_ignored = true;
  for (std::size_t h = 0; h < c.n_heads; ++h)
    for (std::size_t i = 0; i < T; ++i)
      for (std::size_t j = 3; j < S; ++j)
        pads_ignored = pads_ignored && weights(1, h, i, j) == 0.0f;
  CHECK(pads_ignored);

  const DecoderLayer::Grads grads = layer.backward(random_normal({2, T, c.d_model}, rng));
  bool pad_rows_zero = true, real_rows_nonzero = true;
  for (std::size_t j = 0; j < S; ++j) {
    float largest = 0.0f;
    for (std::size_t k = 0; k < c.d_model; ++k)
      largest = std::max(largest, std::abs(grads.memory(1, j, k)));
    if (j >= 3)
      pad_rows_zero = pad_rows_zero && largest == 0.0f;
    else
      real_rows_nonzero = real_rows_nonzero && largest > 0.0f;
  }
  CHECK(pad_rows_zero);
  CHECK(real_rows_nonzero);
}

TEST_CASE("DecoderLayer: dropout is reproducible in training and off in evaluation",
          "[decoder_layer][dropout]") {
  Rng input_rng(5);
  const Tensor3 x = random_normal({2, 6, 16}, input_rng),
                memory = random_normal({2, 5, 16}, input_rng);
  const Mask self_mask = subsequent_mask(2, 6);
  Rng r1(7), r2(7), r3(8), r0(7);
  DecoderLayer a(tiny_with_dropout(0.3f), r1), b(tiny_with_dropout(0.3f), r2),
      other(tiny_with_dropout(0.3f), r3), off(tiny_with_dropout(0.0f), r0);
  const Tensor3 first = a.forward(x, memory, &self_mask, nullptr);
  CHECK(same(first, b.forward(x, memory, &self_mask, nullptr)));
  CHECK_FALSE(same(first, other.forward(x, memory, &self_mask, nullptr)));
  CHECK_FALSE(same(first, off.forward(x, memory, &self_mask, nullptr)));
  CHECK_FALSE(same(first, a.forward(x, memory, &self_mask, nullptr)));
  a.set_training(false);
  CHECK(
      same(a.forward(x, memory, &self_mask, nullptr), off.forward(x, memory, &self_mask, nullptr)));
}

TEST_CASE("DecoderLayer: parameter names and count", "[decoder_layer]") {
  Config c = preset("tiny");
  c.attention_bias = false;  // reference 002's bias-free attention: no *.w_?.bias at all
  Rng rng(6);
  DecoderLayer layer(c, rng);
  const ParameterList params = parameters_of(layer);
  std::vector<std::string> names;
  for (const ParameterRef& p : params) names.push_back(p.name);
  const std::vector<std::string> expected = {
      "self_attn.w_q.weight",  "self_attn.w_k.weight",  "self_attn.w_v.weight",
      "self_attn.w_o.weight",  "norm1.weight",          "norm1.bias",
      "cross_attn.w_q.weight", "cross_attn.w_k.weight", "cross_attn.w_v.weight",
      "cross_attn.w_o.weight", "norm2.weight",          "norm2.bias",
      "ffn.linear1.weight",    "ffn.linear1.bias",      "ffn.linear2.weight",
      "ffn.linear2.bias",      "norm3.weight",          "norm3.bias"};
  CHECK(names == expected);
  CHECK(params.count() == count::decoder_layer(c));

  // memory of another width than the decoder's is a clear error
  const Tensor3 x = xt::zeros<float>({2, 6, 16}), wrong = xt::zeros<float>({2, 5, 12});
  CHECK_THROWS_AS(layer.forward(x, wrong, nullptr, nullptr), ShapeError);
}

TEST_CASE("DecoderLayer: output and every gradient (memory's too) match PyTorch",
          "[decoder_layer][parity]") {
  // As the encoder layer's parity test (test_encoder_layer.cpp), for the twin's DecoderLayer:
  // target sentence 1 ends in 1 pad (its self-attention mask is padding AND causal), source
  // sentence 1 in 2 pads (the cross-attention mask); memory is an independent random input.
  const std::string dir = "transformer/layers/";
  Config c = preset("tiny");
  c.d_model = 8, c.d_ff = 16, c.dropout = 0.0f;
  Rng rng(0);
  DecoderLayer layer(c, rng);
  const ParameterList params = parameters_of(layer);
  testing::load_parameters(params, dir + "decoder.param.");
  auto ids = [&](const std::string& name) {
    const Tensor2 values = testing::load_fixture<2>(dir + name);
    TokenIds out = TokenIds::from_shape(values.shape());
    std::transform(values.begin(), values.end(), out.begin(),
                   [](float v) { return static_cast<std::int32_t>(v); });
    return out;
  };
  const TokenIds src = ids("src"), tgt_in = ids("tgt_in");
  const Mask self_mask = decoder_self_mask(tgt_in);
  const Mask cross_mask = padding_mask(src, tgt_in.shape(1));

  const Tensor3 output =
      layer.forward(testing::load_fixture<3>(dir + "y"), testing::load_fixture<3>(dir + "memory"),
                    &self_mask, &cross_mask);
  const DecoderLayer::Grads grads =
      layer.backward(testing::load_fixture<3>(dir + "decoder.grad_output"));
  CHECK(testing::max_relative_error(output, testing::load_fixture<3>(dir + "decoder.output"),
                                    1e-3) < 1e-4);
  CHECK(testing::max_relative_error(grads.x, testing::load_fixture<3>(dir + "decoder.grad.x"),
                                    1e-3) < 1e-4);
  CHECK(testing::max_relative_error(
            grads.memory, testing::load_fixture<3>(dir + "decoder.grad.memory"), 1e-3) < 1e-4);
  std::string worst_name;
  const double worst = testing::parameter_gradient_error(params, dir + "decoder.grad.", worst_name);
  INFO("worst parameter gradient: " << worst_name << " " << worst);
  CHECK(worst < 1e-4);
}
