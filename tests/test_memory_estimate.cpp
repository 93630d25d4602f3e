// The memory estimate: the formulas of memory_estimate.hpp on a configuration small enough to
// compute by hand, the parameter count against config.hpp's, and the refusal's message.
#include <catch2/catch.hpp>
#include <string>

#include "tfm/machinery/memory_estimate.hpp"
#include "tfm/model/config.hpp"

using namespace tfm;
using Catch::Contains;

namespace {

// B = 2, S = 3, T = 2, d = 4, f = 8, H = 2, V = 7 (source 5), M = 10, one layer each, dropout on.
Config hand_config() {
  Config c;
  c.src_vocab_size = 5;
  c.tgt_vocab_size = 7;
  c.d_model = 4;
  c.n_heads = 2;
  c.n_encoder_layers = 1;
  c.n_decoder_layers = 1;
  c.d_ff = 8;
  c.dropout = 0.1f;
  c.attention_bias = true;
  c.linear_bias = true;
  c.shared_embedding = false;
  c.max_len = 10;
  c.src_len = 3;
  c.tgt_len = 2;
  return c;
}

}  // namespace

TEST_CASE("Memory estimate: the parameter count is config.hpp's, in double", "[memory]") {
  // Embeddings (5 + 7)·4 = 48; encoder layer 4·(16 + 4) + (32 + 8) + (32 + 4) + 2·8 = 172;
  // decoder layer 2·80 + 76 + 3·8 = 260; generator 4·7 + 7 = 35.
  CHECK(parameter_count(hand_config()) == 515.0);
  CHECK(total_parameters(hand_config()) == 515);
  for (const std::string& name : preset_names()) {
    INFO(name);
    CHECK(parameter_count(preset(name)) == static_cast<double>(total_parameters(preset(name))));
  }
  Config huge;
  huge.d_model = 4000000000;  // 4·10⁹: d² alone overflows 64 bits once multiplied out
  CHECK(parameter_count(huge) > 1e20);
}

TEST_CASE("Memory estimate: training, by hand", "[memory]") {
  const MemoryEstimate e = training_memory(hand_config(), 2);
  CHECK(e.parameters == 4 * 515.0);
  CHECK(e.gradients == 4 * 515.0);
  CHECK(e.optimizer == 8 * 515.0);
  CHECK(e.positional_tables == 4 * 2 * 10 * 4.0);  // 320
  // Encoder layer, n = BS = 6: floats 8·6·4 + 6·8 + 2·2·3² + 2·6 = 288 (1152 bytes);
  //   bytes BS² + nf + δ(2nd + nf) = 18 + 48 + 96 = 162.                    -> 1314
  // Decoder layer, m = BT = 4: floats 12·4·4 + 3·2·3·4 + 4·8 + 2·2·2² + 2·2·2·3 + 3·4 = 348
  //   (1392 bytes); bytes BT² + BTS + mf + δ(3md + mf) = 8 + 12 + 32 + 80 = 132. -> 1524
  // Stacks: 4·(BTd + BTV) = 176, masks 18 + 8 + 12 = 38, dropout 24 + 16 = 40,
  //   ids 4·(2·6 + 3·4) = 96.                                                 -> 350
  CHECK(e.activations == 1314.0 + 1524.0 + 350.0);
  // L = 3: 4·(2·2·2·7 + 4·2·3·8 + 3·2·2·3²) = 4·(56 + 192 + 108)
  CHECK(e.workspace == 1424.0);
  CHECK(e.checkpoint_copy == 0.0);
  CHECK(e.total() == 13172.0);
  CHECK_THAT(e.what, Contains("training with batch 2") && Contains("d_model 4"));
  // Without dropout the masks go: encoder 96, decoder 80, stacks 40 bytes fewer.
  Config no_dropout = hand_config();
  no_dropout.dropout = 0.0f;
  CHECK(training_memory(no_dropout, 2).activations == 3188.0 - 96 - 80 - 40);
  // Twice the batch: everything but the weights, their gradients, moments and tables doubles.
  const MemoryEstimate twice = training_memory(hand_config(), 4);
  CHECK(twice.activations == 2 * e.activations);
  CHECK(twice.workspace == 2 * e.workspace);
  CHECK(twice.parameters == e.parameters);
}

TEST_CASE("Memory estimate: inference and loading a checkpoint, by hand", "[memory]") {
  const MemoryEstimate e = inference_memory(hand_config(), 1);
  CHECK(e.parameters == 2060.0);
  CHECK(e.gradients == 2060.0);
  CHECK(e.optimizer == 0.0);
  CHECK(e.positional_tables == 320.0);
  // Encoder layer at B = 1, no dropout masks: floats 96 + 24 + 18 + 6 = 144 (576), bytes
  // 9 + 24 = 33 -> 609; the source mask 9; the decoder's caches 4·(2·2·4 + 2·3·4) = 160 and
  // its layer at one position: floats 48 + 36 + 8 + 2 + 6 + 3 = 103 (412), bytes 1 + 3 + 8.
  CHECK(e.activations == 609.0 + 9.0 + 160.0 + 424.0);
  CHECK(e.workspace == 4 * (2 * 7.0 + 4 * 3 * 8 + 3 * 2 * 9));  // 656
  CHECK(e.total() == 6298.0);
  const MemoryEstimate loading = loading_memory(hand_config());
  CHECK(loading.checkpoint_copy == 4 * (515.0 + 32));  // the copy, and the largest file (d·f)
  CHECK(loading.total() == 6298.0 + 2188.0);
}

TEST_CASE("Memory estimate: a configuration larger than the machine is refused with the estimate",
          "[memory][bad-input]") {
  const MachineMemory small{8.0 * 1024 * 1024 * 1024, "a test machine"};
  CHECK_NOTHROW(require_memory(training_memory(preset("vowels-small"), 64), small));

  Config huge;
  huge.d_model = 4000000000;
  try {
    require_memory(loading_memory(huge), small);
    FAIL("not refused");
  } catch (const MemoryError& e) {
    const std::string message = e.what();
    CHECK_THAT(message, Contains("loading the checkpoint (d_model 4000000000, d_ff 32"));
    CHECK_THAT(message,
               Contains("needs about 4.4e+12 GiB (parameters 1.4e+12 GiB, gradients 1.4e+12 GiB"));
    CHECK_THAT(message, Contains("but this machine has 8.00 GiB (a test machine)"));
    CHECK_THAT(message, Contains("choose smaller sizes"));
  }
  // A batch nobody could mean: the activations, not the weights, are what does not fit.
  try {
    require_memory(training_memory(preset("vowels-small"), 10000000), small);
    FAIL("not refused");
  } catch (const MemoryError& e) {
    CHECK_THAT(std::string(e.what()),
               Contains("training with batch 10000000") && Contains("activations"));
  }
  // Unknown memory (0 bytes reported): no guess, no refusal.
  CHECK_NOTHROW(require_memory(loading_memory(huge), MachineMemory{0.0, "unknown"}));
  // This machine's own figure is positive and named.
  const MachineMemory here = machine_memory();
  CHECK(here.bytes > 0);
  CHECK_FALSE(here.source.empty());
}

TEST_CASE("Memory estimate: bytes as a person reads them", "[memory]") {
  CHECK(format_bytes(512) == "512 bytes");
  CHECK(format_bytes(3.5 * 1024 * 1024) == "3.5 MiB");
  CHECK(format_bytes(1.5 * 1024 * 1024 * 1024) == "1.50 GiB");
  CHECK(format_bytes(2e4 * 1024 * 1024 * 1024) == "2e+04 GiB");
}
