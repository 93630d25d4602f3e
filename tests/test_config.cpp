#include <catch2/catch.hpp>

#include "tfm/model/config.hpp"

using tfm::Config;

TEST_CASE("presets carry the reference configurations", "[config]") {
  const Config csdn = tfm::preset("csdn");
  CHECK(csdn.src_vocab_size == 10000);
  CHECK(csdn.d_model == 512);
  CHECK(csdn.n_heads == 8);
  CHECK(csdn.d_k() == 64);
  CHECK(csdn.n_encoder_layers == 6);
  CHECK(csdn.d_ff == 2048);
  CHECK(csdn.shared_embedding);
  CHECK(csdn.attention_bias);

  const Config vowels = tfm::preset("vowels");
  CHECK(vowels.d_model == 256);
  CHECK(vowels.n_encoder_layers == 3);
  CHECK(vowels.d_ff == 1024);
  CHECK(vowels.batch_size == 128);
  CHECK_FALSE(vowels.attention_bias);
  CHECK_FALSE(vowels.shared_embedding);

  const Config nlp = tfm::preset("nlp-tutorial");
  CHECK(nlp.d_k() == 64);
  CHECK(nlp.src_len == 5);
  CHECK(nlp.tgt_len == 6);

  for (const auto& name : tfm::preset_names()) CHECK_NOTHROW(tfm::preset(name).validate());
}

TEST_CASE("parameter counts follow the formulas of each component", "[config]") {
  // PyTorch's sum(p.numel()) for reference 002's model with its 29-symbol vocabulary.
  CHECK(tfm::total_parameters(tfm::preset("vowels")) == 5542685);
  // Reference 000: one shared 10000 x 512 table, biased attention, 6 + 6 layers.
  CHECK(tfm::total_parameters(tfm::preset("csdn")) == 54388496);
  const Config tiny = tfm::preset("tiny");
  CHECK(tfm::count::multi_head_attention(tiny) == 4 * (16 * 16 + 16));
  CHECK(tfm::count::feed_forward(tiny) == 16 * 32 + 32 + 32 * 16 + 16);
}

TEST_CASE("Config::set overrides fields and rejects bad keys and values", "[config]") {
  Config c = tfm::preset("tiny");
  c.set("d_model=32");
  c.set("dropout", "0.25");
  c.set("shared_embedding", "true");
  CHECK(c.d_model == 32);
  CHECK(c.dropout == 0.25f);
  CHECK(c.shared_embedding);
  CHECK(c.get("d_model") == "32");
  CHECK_THROWS_WITH(c.set("colour=3"), Catch::Contains("unknown config key 'colour'"));
  CHECK_THROWS_WITH(c.set("d_model=abc"), Catch::Contains("'d_model' needs a whole number"));
  CHECK_THROWS_WITH(c.set("d_model=-4"), Catch::Contains("'d_model' needs a whole number"));
  CHECK_THROWS_WITH(c.set("dropout"), Catch::Contains("needs key=value"));
  // 1e-45 is a subnormal float: it was accepted, then reported as "got 0.000000".
  CHECK_THROWS_WITH(c.set("learning_rate=1e-45"), Catch::Contains("too close to 0 for a float"));
  CHECK_NOTHROW(c.set("learning_rate=1e-30"));
  CHECK_THROWS_WITH(tfm::preset("huge"), Catch::Contains("unknown preset 'huge'"));
}

TEST_CASE("invalid combinations are rejected with the reason", "[config]") {
  Config c = tfm::preset("vowels");
  c.n_heads = 7;
  CHECK_THROWS_WITH(c.validate(),
                    Catch::Contains("d_model (256) must be divisible by n_heads (7)"));
  c = tfm::preset("tiny");
  c.d_ff = 0;
  CHECK_THROWS_WITH(c.validate(), Catch::Contains("d_ff must be at least 1"));
  c = tfm::preset("tiny");
  c.dropout = 1.0f;
  CHECK_THROWS_WITH(c.validate(), Catch::Contains("dropout must be in [0, 1)"));
  c = tfm::preset("tiny");
  c.shared_embedding = true;
  c.tgt_vocab_size = 20;
  CHECK_THROWS_WITH(c.validate(), Catch::Contains("shared_embedding needs"));
}
