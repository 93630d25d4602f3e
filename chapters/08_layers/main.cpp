// Chapter 08: the encoder layer and the decoder layer.
//
// A layer wraps each sub-layer (attention, feed-forward) in "Add & Norm": the sub-layer's output
// is added to its input (the residual connection) and the sum is normalised,
// LayerNorm(x + Dropout(sublayer(x))). The encoder layer has two sub-layers, the decoder layer
// three: masked self-attention, cross-attention over the encoder's output, feed-forward.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "tfm/core/random.hpp"
#include "tfm/core/trace.hpp"
#include "tfm/layers/mask.hpp"
#include "tfm/machinery/command_line.hpp"
#include "tfm/model/config.hpp"
#include "tfm/model/decoder_layer.hpp"
#include "tfm/model/encoder_layer.hpp"
#include "tfm/tasks/toy_translation.hpp"

namespace {

// The components of the lines this program adds to the shape trace.
constexpr tfm::trace::Component traced_input("Input");
constexpr tfm::trace::Component traced_chapter("Chapter");

// Parameters per sub-layer: the registry's names grouped by their first part (self_attn, norm1, ...).
void print_parameter_groups(const char* title, const tfm::ParameterList& params) {
  std::printf("%s\n", title);
  std::vector<std::pair<std::string, std::size_t>> groups;
  for (const tfm::ParameterRef& p : params) {
    const std::string group = p.name.substr(0, p.name.find('.'));
    if (groups.empty() || groups.back().first != group) groups.emplace_back(group, 0);
    groups.back().second += p.size;
  }
  for (const auto& [group, count] : groups) std::printf("  %-12s %10zu\n", group.c_str(), count);
  std::printf("  %-12s %10zu\n", "total", params.count());
}

// Largest |mean| and the range of the standard deviations over the rows of y [B, L, d].
void print_row_statistics(const char* what, const tfm::Tensor3& y) {
  const std::size_t rows = y.shape(0) * y.shape(1), d = y.shape(2);
  double worst_mean = 0.0, min_std = INFINITY, max_std = 0.0;
  for (std::size_t r = 0; r < rows; ++r) {
    const float* row = y.data() + r * d;
    double mean = 0.0, square = 0.0;
    for (std::size_t j = 0; j < d; ++j) mean += row[j];
    mean /= double(d);
    for (std::size_t j = 0; j < d; ++j) square += (row[j] - mean) * (row[j] - mean);
    const double std_dev = std::sqrt(square / double(d));
    worst_mean = std::max(worst_mean, std::abs(mean));
    min_std = std::min(min_std, std_dev);
    max_std = std::max(max_std, std_dev);
  }
  std::printf(
      "%s: every row has mean 0 (largest |mean| %.1e) and standard deviation %.5f .. %.5f\n", what,
      worst_mean, min_std, max_std);
}

}  // namespace

int main(int argc, char** argv) {
  return tfm::run_program([&] {
    tfm::CommandLine cli("ch08_layers",
                         "Chapter 08: one encoder layer and one decoder layer, forward and "
                         "backward, with the shape of every step.");
    cli.config_options("nlp-tutorial")
        .config_keys_used(
            {"d_model", "n_heads", "d_ff", "dropout", "attention_bias", "linear_bias"})
        .option("--seed", "N", "seed of the weights, the dropout masks and the stand-in vectors",
                "0");
    if (!cli.parse(argc, argv)) return 0;
    tfm::Config config = tfm::config_from_command_line(cli);
    const std::size_t d = config.d_model;

    // [build layers]
    tfm::Rng rng(cli.count("--seed"));
    tfm::EncoderLayer encoder_layer(config, rng);
    tfm::DecoderLayer decoder_layer(config, rng);
    // [build layers]
    std::printf("Preset '%s': d_model = %zu, %zu heads, d_ff = %zu, dropout p = %.2f, bias: %s\n\n",
                config.preset.c_str(), d, config.n_heads, config.d_ff, double(config.dropout),
                config.attention_bias ? "yes" : "no");
    print_parameter_groups("Encoder layer parameters", tfm::parameters_of(encoder_layer));
    print_parameter_groups("Decoder layer parameters", tfm::parameters_of(decoder_layer));

    // nlp-tutorial's two sentence pairs give the masks (source sentence 0 ends in <pad>); the
    // layers only need vectors of width d_model: stand-ins from N(0, 1).
    const tfm::ToyTranslation data;
    const tfm::Batch batch = data.all();
    const std::size_t B = batch.size(), S = batch.src.shape(1), T = batch.tgt_in.shape(1);
    const tfm::Tensor3 x = tfm::random_normal(B, S, d, rng);  // the source side, [B, S, d]
    const tfm::Tensor3 y = tfm::random_normal(B, T, d, rng);  // the target side, [B, T, d]
    const tfm::Mask src_mask = tfm::padding_mask(batch.src, S);
    const tfm::Mask tgt_mask = tfm::decoder_self_mask(batch.tgt_in);
    const tfm::Mask cross_mask = tfm::padding_mask(batch.src, T);

    // [run layers]
    tfm::Tensor3 memory, output;
    std::printf("\n");
    {
      tfm::trace::Enable trace;
      tfm::trace::Scope scope("EncoderLayer");
      traced_input(x, "source stand-ins", "x", "batch, src_len, d_model");
      memory = encoder_layer.forward(x, &src_mask);
    }
    std::printf("\n");
    {
      tfm::trace::Enable trace;
      tfm::trace::Scope scope("DecoderLayer (memory = the encoder layer's output)");
      traced_input(y, "target stand-ins", "y", "batch, tgt_len, d_model");
      output = decoder_layer.forward(y, memory, &tgt_mask, &cross_mask);
    }
    // [run layers]
    std::printf("\n");
    print_row_statistics("Encoder layer output", memory);
    print_row_statistics("Decoder layer output", output);
    std::printf(
        "(post-norm: each layer ends in a LayerNorm, weight 1 and bias 0 before training)\n");

    // [run backward]
    // Backward from a stand-in upstream gradient dL/d(output) from N(0, 1) (a gradient of ones
    // would vanish in the final LayerNorm: it removes any shift shared by a whole row). The
    // decoder layer returns the gradient of its input y AND of memory; memory's gradient is
    // where the encoder layer's backward starts.
    const tfm::Tensor3 grad_output = tfm::random_normal(B, T, d, rng);
    std::printf("\n");
    tfm::DecoderLayer::Grads decoder_grads;
    tfm::Tensor3 grad_x;
    {
      tfm::trace::Enable trace;
      {
        tfm::trace::Scope scope("DecoderLayer backward");
        decoder_grads = decoder_layer.backward(grad_output);
        traced_chapter(decoder_grads.x, "gradient of the decoder input", "grad_y",
                       "batch, tgt_len, d_model");
        traced_chapter(decoder_grads.memory, "gradient of the encoder output", "grad_memory",
                       "batch, src_len, d_model");
      }
      tfm::trace::Scope scope("EncoderLayer backward (upstream gradient: grad_memory)");
      grad_x = encoder_layer.backward(decoder_grads.memory);
      traced_chapter(grad_x, "gradient of the encoder input", "grad_x", "batch, src_len, d_model");
      for (const tfm::ParameterRef& p : tfm::parameters_of(encoder_layer))
        tfm::trace::write_step("Chapter", "parameter gradient", p.name + ".grad",
                               tfm::shape_string(p.shape), "");
    }
    // [run backward]

    // [memory gradient]
    // Cross-attention gives a <pad> key the weight 0, so no gradient flows back to it: the
    // memory rows of padded source positions get exactly 0.
    std::printf("\nLargest |grad_memory| of every source position of sentence 0:\n");
    for (std::size_t j = 0; j < S; ++j) {
      float largest = 0.0f;
      for (std::size_t k = 0; k < d; ++k)
        largest = std::max(largest, std::abs(decoder_grads.memory(0, j, k)));
      std::printf("  %-8s %.4g\n", data.source_vocabulary().symbol(batch.src(0, j)).c_str(),
                  double(largest));
    }
    // [memory gradient]
    return 0;
  });
}
