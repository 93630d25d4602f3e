// Chapter 07: the position-wise feed-forward network.
//
// After attention has mixed information between positions, every position goes alone through
// the same small two-layer network: widen d_model -> d_ff, ReLU, (dropout), narrow back to
// d_model. "Position-wise" means exactly that: one network, applied to every row separately.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <xtensor/xview.hpp>

#include "tfm/core/random.hpp"
#include "tfm/core/trace.hpp"
#include "tfm/layers/feed_forward.hpp"
#include "tfm/layers/multi_head_attention.hpp"
#include "tfm/machinery/command_line.hpp"
#include "tfm/model/config.hpp"

namespace {
// The components of the lines this program adds to the shape trace.
constexpr tfm::trace::Component traced_input("Input");
}  // namespace

int main(int argc, char** argv) {
  return tfm::run_program([&] {
    tfm::CommandLine cli("ch07_feed_forward",
                         "Chapter 07: the position-wise feed-forward network, Linear -> ReLU -> "
                         "Dropout -> Linear, forward and backward.");
    cli.config_options("csdn")
        .config_keys_used(
            {"d_model", "d_ff", "dropout", "linear_bias", "n_heads", "attention_bias"})
        .option("--seed", "N", "seed of the weights, the dropout masks and the input", "0");
    if (!cli.parse(argc, argv)) return 0;
    tfm::Config config = tfm::config_from_command_line(cli);
    const std::size_t d = config.d_model, d_ff = config.d_ff;
    const auto seed = cli.count("--seed");

    // [build ffn]
    tfm::Rng rng(seed);
    tfm::FeedForward ffn(d, d_ff, config.linear_bias, config.dropout, /*dropout_seed=*/seed + 1,
                         rng);
    // [build ffn]
    std::printf(
        "Preset '%s': d_model = %zu, d_ff = %zu (%.0f x d_model), bias: %s, dropout p = %.2f\n\n",
        config.preset.c_str(), d, d_ff, double(d_ff) / double(d), config.linear_bias ? "yes" : "no",
        double(config.dropout));

    // A small batch: 2 sequences of 5 positions, stand-in vectors from N(0, 1).
    const std::size_t B = 2, L = 5;
    tfm::Tensor3 x = tfm::Tensor3::from_shape({B, L, d});
    rng.fill_normal(x, 0.0f, 1.0f);

    // [run ffn]
    tfm::Tensor3 y;
    {
      tfm::trace::Enable trace;
      tfm::trace::Scope scope("FeedForward, training mode");
      traced_input(x, "stand-in token vectors", "x", "batch, len, d_model");
      y = ffn.forward(x);
    }
    // [run ffn]
    if (ffn.dropout_mask().size() > 0) {
      const auto dropped = std::count(ffn.dropout_mask().begin(), ffn.dropout_mask().end(), 0);
      std::printf(
          "dropout zeroed %ld of %zu hidden units (%.1f %%, p = %.2f); the others were scaled by "
          "1/(1-p) = %.4f\n",
          static_cast<long>(dropped), ffn.dropout_mask().size(),
          100.0 * double(dropped) / double(ffn.dropout_mask().size()), double(config.dropout),
          1.0 / (1.0 - double(config.dropout)));
    }

    // [run backward]
    std::printf("\n");
    {
      tfm::trace::Enable trace;
      tfm::trace::Scope scope("FeedForward backward (upstream gradient of ones)");
      ffn.backward(xt::ones<float>(y.shape()));
      for (const tfm::ParameterRef& p : tfm::parameters_of(ffn))
        tfm::trace::write_step("Chapter", "gradient of " + p.name, p.name + ".grad",
                               tfm::shape_string(p.shape), "");
    }
    // [run backward]

    // [position-wise]
    // Position-wise: position 2 run alone gives the same row as position 2 inside the batch
    // (evaluation mode, so that no dropout mask differs between the two runs).
    ffn.set_training(false);
    const tfm::Tensor3 all = ffn.forward(x);
    const tfm::Tensor3 one_position = xt::view(x, xt::all(), xt::range(2, 3), xt::all());
    const tfm::Tensor3 alone = ffn.forward(one_position);
    float largest_difference = 0.0f;
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t j = 0; j < d; ++j)
        largest_difference = std::max(largest_difference, std::abs(alone(b, 0, j) - all(b, 2, j)));
    // [position-wise]
    std::printf("\nPosition 2 alone vs. inside the sequence: largest difference %.3g\n",
                double(largest_difference));

    // [parameter count]
    const std::size_t ffn_count = tfm::parameters_of(ffn).count();
    tfm::Rng other(seed);
    tfm::MultiHeadAttention attention(d, config.n_heads, config.attention_bias, other);
    const std::size_t attention_count = tfm::parameters_of(attention).count();
    // [parameter count]
    std::printf("\nParameters\n");
    for (const tfm::ParameterRef& p : tfm::parameters_of(ffn))
      std::printf("  %-16s %-12s %10zu\n", p.name.c_str(), tfm::shape_string(p.shape).c_str(),
                  p.size);
    std::printf("  %-29s %10zu   (2 d_model d_ff%s)\n", "feed-forward network", ffn_count,
                config.linear_bias ? " + d_ff + d_model" : "");
    std::printf("  %-29s %10zu   (4 d_model^2%s)\n", "multi-head attention", attention_count,
                config.attention_bias ? " + 4 d_model" : "");
    std::printf(
        "  ratio %.2f, about d_ff / (2 d_model) = %.2f: in the paper's sizes the FFN holds twice "
        "the\n"
        "  parameters of the attention it follows\n",
        double(ffn_count) / double(attention_count), double(d_ff) / (2.0 * double(d)));
    std::printf("  (the formulas of chapter 01 give %zu and %zu)\n",
                tfm::count::feed_forward(config), tfm::count::multi_head_attention(config));
    return 0;
  });
}
