// The whole model against its PyTorch twin (tools/reference_transformer.py): logits, loss and the
// gradient of every named parameter, on a padded batch, for two variants of the configuration.
#include <catch2/catch.hpp>

#include <fstream>

#include "fixtures.hpp"
#include "tfm/cross_entropy.hpp"
#include "tfm/npy.hpp"
#include "tfm/transformer.hpp"

using namespace tfm;

namespace {

Config fixture_config(const std::string& variant) {
  Config config;
  std::ifstream in(testing::fixture_path("transformer/" + variant + "/config.txt"));
  REQUIRE(in);
  for (std::string line; std::getline(in, line);) config.set(line);
  return config;
}

TokenIds fixture_ids(const std::string& name) {
  const Tensor2 values = testing::load_fixture<2>(name);
  TokenIds ids = TokenIds::from_shape(values.shape());
  for (std::size_t i = 0; i < values.size(); ++i) ids.data()[i] = static_cast<std::int32_t>(values.data()[i]);
  return ids;
}

// |a - b| / (atol + |b|) over a flat array.
double flat_relative_error(const float* a, const std::vector<float>& b, double atol) {
  double worst = 0;
  for (std::size_t i = 0; i < b.size(); ++i)
    worst = std::max(worst, std::abs(double(a[i]) - b[i]) / (atol + std::abs(double(b[i]))));
  return worst;
}

}  // namespace

TEST_CASE("Transformer: logits, loss and every gradient match PyTorch", "[transformer][parity]") {
  for (const std::string variant : {"biased_shared", "plain_separate"}) {
    INFO("variant " << variant);
    const std::string dir = "transformer/" + variant + "/";
    Transformer model(fixture_config(variant), 0);
    ParameterList params = parameters_of(model);
    for (const ParameterRef& p : params) {
      const NpyArray saved = load_npy_file(testing::fixture_path(dir + "param." + p.name + ".npy"));
      REQUIRE(saved.shape == p.shape);
      std::copy(saved.values.begin(), saved.values.end(), p.value);
    }
    const TokenIds src = fixture_ids(dir + "src"), tgt_in = fixture_ids(dir + "tgt_in"),
                   tgt_out = fixture_ids(dir + "tgt_out");

    const Tensor3 logits = model.forward(src, tgt_in);
    CrossEntropy loss_fn(kPadId);
    const float loss = loss_fn.forward(logits, tgt_out);
    model.backward(loss_fn.backward());

    // The reference is float64; float32 through 2 + 2 layers keeps ~1e-6 relative error on the
    // logits, and the gradients stay within the 1e-4 relative. Some gradients are zero in
    // exact arithmetic (the key biases: a softmax ignores a shift shared by its whole row) and
    // come out as float rounding noise (~2e-9), so every entry must satisfy
    // |ours - torch| <= 1e-4 * (|torch| + 1e-3 * max|grad|): allclose with rtol 1e-4 and an atol of
    // 1e-7 of the largest gradient entry of the model.
    CHECK(testing::max_relative_error(logits, testing::load_fixture<3>(dir + "logits"), 1e-5) < 1e-4);
    CHECK(loss == Approx(testing::load_fixture<1>(dir + "loss")(0)).epsilon(1e-5));
    std::vector<NpyArray> expected_grads;
    double scale = 0;
    for (const ParameterRef& p : params) {
      expected_grads.push_back(load_npy_file(testing::fixture_path(dir + "grad." + p.name + ".npy")));
      for (float g : expected_grads.back().values) scale = std::max(scale, std::abs(double(g)));
    }
    double worst = 0;
    std::string worst_name;
    std::size_t i = 0;
    for (const ParameterRef& p : params) {
      const double err = flat_relative_error(p.grad, expected_grads[i++].values, 1e-3 * scale);
      if (err > worst) worst = err, worst_name = p.name;
    }
    INFO("worst gradient: " << worst_name << " " << worst);
    CHECK(worst < 1e-4);
  }
}
