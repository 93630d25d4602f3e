// The encoder and decoder stacks (chapter 09): Dropout(Embed(ids) * sqrt(d_model) + PE), then N
// layers; the decoder's layers all read the encoder's output (memory).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "expected_trace.hpp"
#include "fixtures.hpp"
#include "gradient_check.hpp"
#include "model_helpers.hpp"
#include "tfm/core/trace.hpp"
#include "tfm/layers/positional_encoding.hpp"
#include "tfm/model/decoder.hpp"
#include "tfm/model/encoder.hpp"

using namespace tfm;
using testing::padded_ids;
using testing::random_normal;
using testing::same;
using testing::tiny_with_dropout;

namespace {

// A padded batch: src [2, 5] (sentence 1 ends in 2 pads), tgt_in [2, 6] (sentence 1: 1 pad),
// and the three masks the Transformer would build from them.
struct Batch {
  TokenIds src, tgt_in;
  Mask src_mask, tgt_mask, cross_mask;
};
Batch make_batch(const Config& c, Rng& rng) {
  Batch b;
  b.src = padded_ids(5, c.src_vocab_size, {0, 2}, rng);
  b.tgt_in = padded_ids(6, c.tgt_vocab_size, {0, 1}, rng);
  b.src_mask = padding_mask(b.src, 5);
  b.tgt_mask = decoder_self_mask(b.tgt_in);
  b.cross_mask = padding_mask(b.src, 6);
  return b;
}

// An encoder and a decoder around one shared table, or two separate tables.
struct Stacks {
  Stacks(const Config& c, bool shared, std::uint64_t seed)
      : rng(seed),
        src_table(c.src_vocab_size, c.d_model, rng),
        tgt_table(shared ? nullptr : std::make_unique<Embedding>(c.tgt_vocab_size, c.d_model, rng)),
        encoder(c, src_table, rng),
        decoder(c, shared ? src_table : *tgt_table, rng) {}

  // memory = Encoder(src); hidden = Decoder(tgt_in, memory).
  Tensor3 forward(const Batch& b) {
    const Tensor3 memory = encoder.forward(b.src, &b.src_mask);
    return decoder.forward(b.tgt_in, memory, &b.tgt_mask, &b.cross_mask);
  }
  // The gradient flows from the decoder back into the encoder through memory.
  void backward(const Tensor3& grad_hidden) { encoder.backward(decoder.backward(grad_hidden)); }

  // Every parameter: the table(s), then encoder.*, decoder.*.
  ParameterList parameters() {
    ParameterList list;
    list.add_module(tgt_table ? "src_embedding" : "embedding", src_table);
    if (tgt_table) list.add_module("tgt_embedding", *tgt_table);
    list.add_module("encoder", encoder);
    list.add_module("decoder", decoder);
    return list;
  }

  Rng rng;
  Embedding src_table;
  std::unique_ptr<Embedding> tgt_table;
  Encoder encoder;
  Decoder decoder;
};

}  // namespace

TEST_CASE("Encoder and Decoder: every traced step has the right shape", "[stacks][trace]") {
  const Config c = tiny_with_dropout(0.1f);
  Rng rng(1);
  const Batch b = make_batch(c, rng);
  Stacks stacks(c, false, 2);
  for (const bool training : {true, false}) {
    stacks.encoder.set_training(training);
    stacks.decoder.set_training(training);
    trace::Capture capture;
    const Tensor3 memory = stacks.encoder.forward(b.src, &b.src_mask);
    const Tensor3 hidden = stacks.decoder.forward(b.tgt_in, memory, &b.tgt_mask, &b.cross_mask);
    CHECK(memory.shape() == Tensor3::shape_type{2, 5, c.d_model});
    CHECK(hidden.shape() == Tensor3::shape_type{2, 6, c.d_model});
    testing::ExpectedTrace expected;
    testing::encoder_forward(expected, 0, c, 2, 5, training);
    testing::decoder_forward(expected, 0, c, 2, 6, 5, training);
    testing::check_trace(capture.text(), expected);
  }
}

TEST_CASE("Encoder and Decoder: N layers applied to Embed(ids) * sqrt(d) + PE", "[stacks]") {
  // In evaluation mode (dropout off) each stack is exactly: look up, scale, add the sinusoidal
  // table, then the layers in order, each on the previous one's output; every decoder layer
  // reads the same memory. Rebuilt here from the parts, bit for bit.
  const Config c = tiny_with_dropout(0.1f);
  Rng rng(3);
  const Batch b = make_batch(c, rng);
  Stacks stacks(c, true, 4);
  stacks.encoder.set_training(false);
  stacks.decoder.set_training(false);
  const Tensor3 memory = stacks.encoder.forward(b.src, &b.src_mask);
  const Tensor3 hidden = stacks.decoder.forward(b.tgt_in, memory, &b.tgt_mask, &b.cross_mask);

  const PositionalEncoding positions(c.max_len, c.d_model);
  Tensor3 x = stacks.src_table.forward(b.src);
  positions.add_to(x);
  for (EncoderLayer& layer : stacks.encoder.layers) x = layer.forward(x, &b.src_mask);
  CHECK(same(x, memory));
  Tensor3 y = stacks.src_table.forward(b.tgt_in);  // the shared table serves both sides
  positions.add_to(y);
  for (DecoderLayer& layer : stacks.decoder.layers)
    y = layer.forward(y, memory, &b.tgt_mask, &b.cross_mask);
  CHECK(same(y, hidden));
}

TEST_CASE("Encoder and Decoder: gradients agree with finite differences", "[stacks][gradcheck]") {
  // L = sum(Decoder(tgt_in, Encoder(src)) * probe) on the tiny sizes with a padded batch and
  // dropout 0, for one shared table and for two separate ones: every entry of the table(s) (a
  // shared table's gradient is the sum of what both stacks send it) and every 13th entry of every
  // layer parameter (the layers are checked entry by entry in their own tests; here the wiring
  // between them is; an odd stride walks across rows and columns).
  //
  // eps as in the layer tests (test_encoder_layer.cpp): the ReLU's kinks kept out of reach, the
  // extrapolated difference at eps = 4e-2. Through 2 + 2 layers the rounding noise grows and a
  // plain central difference is hopeless where attention is sharp (25 % error at eps 4e-2,
  // 5 % at 2e-2 on one decoder query weight); measured worst score, extrapolated: 2.0e-2
  // shared, 1.0e-2 separate (rounding noise ~2e-4 on gradients of ~1e-3). Hence the bound 5e-2; a wrong gradient
  // (a table missing one side's scatter, the layers applied in the wrong order) is off by O(1).
  const float eps = 4e-2f;
  const double atol = 1e-2, tol = 5e-2;
  const Config c = tiny_with_dropout(0.0f);
  for (const bool shared : {true, false}) {
    INFO((shared ? "shared table" : "separate tables"));
    Rng rng(5);
    const Batch b = make_batch(c, rng);
    Stacks stacks(c, shared, 6);
    ParameterList params = stacks.parameters();
    testing::randomise_norms(params, rng);
    for (EncoderLayer& layer : stacks.encoder.layers)
      testing::keep_relu_clear_of_kinks(layer.ffn, layer.norm1.norm);
    for (DecoderLayer& layer : stacks.decoder.layers)
      testing::keep_relu_clear_of_kinks(layer.ffn, layer.norm2.norm);
    const Tensor3 probe = random_normal({2, 6, c.d_model}, rng);

    stacks.forward(b);
    stacks.backward(probe);
    auto loss = [&] { return testing::dot_loss(stacks.forward(b), probe); };
    for (const ParameterRef& p : params) {
      const bool table = p.name.find("embedding") != std::string::npos;
      const auto rep = testing::check_gradient_extrapolated(p.value, p.grad, p.size, loss, eps,
                                                            atol, table ? 1 : 13);
      INFO(rep.describe(p.name));
      CHECK(rep.worst < tol);
    }
  }
}

TEST_CASE("Decoder: the memory gradient is summed over all its layers", "[stacks][gradcheck]") {
  // Every decoder layer's cross-attention reads the same memory, so grad_memory is the sum of the
  // layers' contributions. Checked by finite differences on every entry of memory (a decoder
  // that returned only its last layer's share would be off by O(1)), and against the layers'
  // own backward passes run one by one.
  const float eps = 4e-2f;
  const double atol = 1e-2, tol = 5e-2;  // as above
  const Config c = tiny_with_dropout(0.0f);
  Rng rng(7);
  const Batch b = make_batch(c, rng);
  Embedding table(c.tgt_vocab_size, c.d_model, rng);
  Decoder decoder(c, table, rng);
  testing::randomise_norms(parameters_of(decoder), rng);
  for (DecoderLayer& layer : decoder.layers)
    testing::keep_relu_clear_of_kinks(layer.ffn, layer.norm2.norm);
  Tensor3 memory = random_normal({2, 5, c.d_model}, rng);
  const Tensor3 probe = random_normal({2, 6, c.d_model}, rng);

  decoder.forward(b.tgt_in, memory, &b.tgt_mask, &b.cross_mask);
  const Tensor3 grad_memory = decoder.backward(probe);
  REQUIRE(grad_memory.shape() == memory.shape());
  auto loss = [&] {
    return testing::dot_loss(decoder.forward(b.tgt_in, memory, &b.tgt_mask, &b.cross_mask), probe);
  };
  const auto rep = testing::check_gradient_extrapolated(memory.data(), grad_memory.data(),
                                                        memory.size(), loss, eps, atol);
  INFO(rep.describe("memory"));
  CHECK(rep.worst < tol);

  // The same sum, from the layers themselves: forward layer by layer, backward in reverse,
  // adding up each layer's memory gradient.
  const PositionalEncoding positions(c.max_len, c.d_model);
  Tensor3 y = table.forward(b.tgt_in);
  positions.add_to(y);
  for (DecoderLayer& layer : decoder.layers)
    y = layer.forward(y, memory, &b.tgt_mask, &b.cross_mask);
  Tensor3 grad_y = probe, sum = xt::zeros<float>(memory.shape());
  for (std::size_t i = decoder.layers.size(); i-- > 0;) {
    DecoderLayer::Grads g = decoder.layers[i].backward(grad_y);
    sum += g.memory;
    grad_y = g.x;
  }
  CHECK(testing::max_relative_error(grad_memory, sum, 1e-6) < 1e-5);
}

TEST_CASE("Encoder and Decoder: a shared table collects both stacks' gradients", "[stacks]") {
  // One table for source and target (reference 000) is used twice per step: its gradient is the
  // encoder's scatter (at the source ids) plus the decoder's (at the target ids). Compared with
  // two separate tables holding the same numbers, whose gradients are those two parts.
  const Config c = tiny_with_dropout(0.0f);
  Rng rng(8);
  const Batch b = make_batch(c, rng);
  Stacks shared(c, true, 9), separate(c, false, 9);
  // Same weights everywhere: copy by name (the separate stacks draw their layers after a second
  // table, so their own draws differ).
  const ParameterList from = shared.parameters(), to = separate.parameters();
  for (const ParameterRef& p : to) {
    const std::string name = p.name == "src_embedding.weight" || p.name == "tgt_embedding.weight"
                                 ? "embedding.weight"
                                 : p.name;
    const ParameterRef& q = from.at(name);
    std::copy(q.value, q.value + q.size, p.value);
  }
  const Tensor3 probe = random_normal({2, 6, c.d_model}, rng);
  const Tensor3 out_shared = shared.forward(b), out_separate = separate.forward(b);
  REQUIRE(same(out_shared, out_separate));
  shared.backward(probe);
  separate.backward(probe);
  const Tensor2 both = separate.src_table.weight.grad + separate.tgt_table->weight.grad;
  CHECK(testing::max_relative_error(shared.src_table.weight.grad, both, 1e-6) < 1e-5);
  // Both parts are really there: a row only the source uses, a row only the target uses.
  bool src_part = false, tgt_part = false;
  for (std::size_t v = 0; v < c.src_vocab_size; ++v) {
    const bool in_src = std::find(b.src.begin(), b.src.end(), std::int32_t(v)) != b.src.end();
    const bool in_tgt =
        std::find(b.tgt_in.begin(), b.tgt_in.end(), std::int32_t(v)) != b.tgt_in.end();
    if (in_src && !in_tgt) src_part = src_part || shared.src_table.weight.grad(v, 0) != 0.0f;
    if (in_tgt && !in_src) tgt_part = tgt_part || shared.src_table.weight.grad(v, 0) != 0.0f;
  }
  CHECK(src_part);
  CHECK(tgt_part);
}

TEST_CASE("Encoder and Decoder: dropout is reproducible in training and off in evaluation",
          "[stacks][dropout]") {
  Rng rng(10);
  const Batch b = make_batch(tiny_with_dropout(0.0f), rng);
  Stacks a(tiny_with_dropout(0.3f), false, 11), again(tiny_with_dropout(0.3f), false, 11),
      off(tiny_with_dropout(0.0f), false, 11);
  const Tensor3 first = a.forward(b);
  CHECK(same(first, again.forward(b)));  // same seed: same weights, same masks
  CHECK_FALSE(same(first, off.forward(b)));
  a.encoder.set_training(false);
  a.decoder.set_training(false);
  CHECK(same(a.forward(b), off.forward(b)));  // evaluation: dropout off everywhere
}

TEST_CASE("Encoder and Decoder: parameter names", "[stacks]") {
  // The stacks register their layers only; the table belongs to the Transformer, which may share it.
  const Config c = tiny_with_dropout(0.1f);
  Stacks stacks(c, false, 12);
  const ParameterList encoder = parameters_of(stacks.encoder),
                      decoder = parameters_of(stacks.decoder);
  const std::regex encoder_name(
      R"(layers\.[01]\.(self_attn\.w_[qkvo]|ffn\.linear[12]|norm[12])\.(weight|bias))");
  const std::regex decoder_name(
      R"(layers\.[01]\.((self|cross)_attn\.w_[qkvo]|ffn\.linear[12]|norm[123])\.(weight|bias))");
  for (const ParameterRef& p : encoder) {
    INFO(p.name);
    CHECK(std::regex_match(p.name, encoder_name));
  }
  for (const ParameterRef& p : decoder) {
    INFO(p.name);
    CHECK(std::regex_match(p.name, decoder_name));
  }
  CHECK(encoder.count() == c.n_encoder_layers * count::encoder_layer(c));
  CHECK(decoder.count() == c.n_decoder_layers * count::decoder_layer(c));
  CHECK(encoder.refs().front().name == "layers.0.self_attn.w_q.weight");
  CHECK(decoder.refs().back().name == "layers.1.norm3.bias");
}
