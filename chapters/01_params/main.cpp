// Chapter 01: the hyper-parameters.
//
// One struct holds every size of the model. The three reference write-ups become named presets;
// `--set key=value` overrides any field; the derived sizes and the parameter count of every
// component follow from it.
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include "tfm/core/trace.hpp"
#include "tfm/machinery/command_line.hpp"
#include "tfm/model/config.hpp"

namespace {

// The presets of the three references and of the tests, side by side: the sizes that differ. The
// other three presets are chapter 11's training sizes.
void print_presets() {
  const std::vector<std::string> names = {"csdn", "nlp-tutorial", "vowels", "tiny"};
  const std::vector<std::string> keys = {"src_vocab_size", "tgt_vocab_size",   "d_model",
                                         "n_heads",        "n_encoder_layers", "n_decoder_layers",
                                         "d_ff",           "dropout",          "attention_bias",
                                         "linear_bias",    "shared_embedding"};
  std::cout << "The presets\n  " << std::left << std::setw(22) << "" << std::right;
  for (const std::string& name : names) std::cout << std::setw(14) << name;
  std::cout << '\n';
  for (const std::string& key : keys) {
    std::cout << "  " << std::left << std::setw(22) << key << std::right;
    for (const std::string& name : names) std::cout << std::setw(14) << tfm::preset(name).get(key);
    std::cout << '\n';
  }
  std::cout << "  " << std::left << std::setw(22) << "parameters" << std::right;
  for (const std::string& name : names)
    std::cout << std::setw(14) << tfm::total_parameters(tfm::preset(name));
  std::cout << "\n";

  // Reference 001 builds its LayerNorms inside forward(), so PyTorch's model.parameters() never
  // sees them. An encoder layer has two, a decoder layer three.
  const tfm::Config reference_001 = tfm::preset("nlp-tutorial");
  const std::size_t norms = 2 * reference_001.n_encoder_layers + 3 * reference_001.n_decoder_layers;
  std::cout << "  nlp-tutorial without its " << norms
            << " LayerNorms, as PyTorch counts reference 001: "
            << tfm::total_parameters(reference_001) - norms * tfm::count::layer_norm(reference_001)
            << "\n\n";
}

}  // namespace

int main(int argc, char** argv) {
  return tfm::run_program([&] {
    tfm::CommandLine cli("ch01_params", "Chapter 01: the hyper-parameters of the Transformer.");
    cli.config_options("csdn");
    if (!cli.parse(argc, argv)) return 0;

    // [build config]
    tfm::Config config = tfm::config_from_command_line(cli);
    // [build config]

    print_presets();
    std::cout << "This run: preset '" << config.preset << "'"
              << (cli.values("--set").empty() ? "" : ", then the --set changes") << "\n";
    for (const std::string& key : tfm::Config::keys())
      std::cout << "  " << std::left << std::setw(22) << key << config.get(key) << '\n';
    std::cout << "Derived: d_k = d_v = d_model / n_heads = " << config.d_model << " / "
              << config.n_heads << " = " << config.d_k() << "\n\n";

    // The shapes every later chapter will produce, in the trace's own format.
    tfm::trace::Enable trace;
    const std::size_t B = config.batch_size, S = config.src_len, T = config.tgt_len;
    const std::size_t d = config.d_model, h = config.n_heads;
    const auto shape = [](std::initializer_list<std::size_t> dims) {
      return tfm::shape_string(std::vector<std::size_t>(dims));
    };
    tfm::trace::Scope scope("Shapes implied by this configuration");
    tfm::trace::write_step("Config", "source tokens", "src", shape({B, S}), "batch, src_len");
    tfm::trace::write_step("Config", "target tokens", "tgt", shape({B, T}), "batch, tgt_len");
    tfm::trace::write_step("Config", "embedded source", "x", shape({B, S, d}),
                           "batch, src_len, d_model");
    tfm::trace::write_step("Config", "queries split into heads", "Q", shape({B, h, S, d / h}),
                           "batch, heads, src_len, d_k");
    tfm::trace::write_step("Config", "attention weights", "A", shape({B, h, S, S}),
                           "batch, heads, len_q, len_k");
    tfm::trace::write_step("Config", "feed-forward hidden", "h", shape({B, S, config.d_ff}),
                           "batch, src_len, d_ff");
    tfm::trace::write_step("Config", "output logits", "logits",
                           shape({B, T, config.tgt_vocab_size}), "batch, tgt_len, tgt_vocab");

    // [parameter table]
    std::cout << "\nParameters\n";
    for (const tfm::ParameterCount& row : tfm::parameter_counts(config)) {
      std::cout << "  " << std::left << std::setw(20) << row.component << std::right
                << std::setw(12) << row.each << " x " << row.copies << " = " << std::setw(12)
                << row.total() << '\n';
    }
    std::cout << "  " << std::left << std::setw(20) << "total" << std::right << std::setw(31)
              << tfm::total_parameters(config) << '\n';
    // [parameter table]
    return 0;
  });
}
