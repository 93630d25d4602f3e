// Chapter 03: token embeddings and the positional encoding.
//
// Attention treats its input as a set: shuffle the tokens and every output is shuffled the same
// way. The order of the words enters only through the positional encoding, a fixed table of
// sines and cosines added to the scaled token embeddings.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <xtensor/xview.hpp>

#include "tfm/core/random.hpp"
#include "tfm/core/trace.hpp"
#include "tfm/layers/embedding.hpp"
#include "tfm/layers/positional_encoding.hpp"
#include "tfm/machinery/command_line.hpp"
#include "tfm/model/config.hpp"
#include "tfm/pictures/heatmap.hpp"

namespace {

// The components of the lines this program adds to the shape trace.
constexpr tfm::trace::Component traced_positional_encoding("PositionalEncoding");
constexpr tfm::trace::Component traced_tokens("Tokens");

// Root mean square of a tensor's entries: the "loudness" of a signal that is added to another.
template <class Tensor>
double rms(const Tensor& t) {
  double sum = 0.0;
  for (float v : t) sum += double(v) * double(v);
  return std::sqrt(sum / double(t.size()));
}

// The same for the rows of `table` that `ids` select.
double rms_of_rows(const tfm::Tensor2& table, const tfm::TokenIds& ids) {
  double sum = 0.0;
  for (std::int32_t id : ids)
    for (std::size_t j = 0; j < table.shape(1); ++j)
      sum += double(table(id, j)) * double(table(id, j));
  return std::sqrt(sum / double(ids.size() * table.shape(1)));
}

}  // namespace

int main(int argc, char** argv) {
  return tfm::run_program([&] {
    tfm::CommandLine cli(
        "ch03_positional_encoding",
        "Chapter 03: token embeddings scaled by sqrt(d_model), plus the sinusoidal "
        "positional encoding.");
    cli.config_options("csdn")
        .option("--seed", "N", "seed of the embedding's random initialisation", "0")
        .option("--svg", "PATH", "where to write the heat map of the table",
                "positional_encoding.svg");
    if (!cli.parse(argc, argv)) return 0;
    tfm::Config config = tfm::config_from_command_line(cli);
    const std::size_t d = config.d_model, seed = cli.count("--seed");

    const tfm::PositionalEncoding pe(config.max_len, d);
    std::cout << "Preset '" << config.preset << "': d_model = " << d
              << ", max_len = " << config.max_len << "\n\n";
    {
      tfm::trace::Enable trace;
      traced_positional_encoding(pe.table(), "sin/cos table", "pe", "max_len, d_model");
    }

    // A corner of the table next to the formula, recomputed here in double precision.
    const std::size_t show_rows = std::min<std::size_t>(4, config.max_len),
                      show_cols = std::min<std::size_t>(6, d);
    std::cout << "\npe[pos, 2i] = sin(pos / 10000^(2i/d_model)),  pe[pos, 2i+1] = cos(pos / "
                 "10000^(2i/d_model))\n"
              << "pos \\ column";
    for (std::size_t j = 0; j < show_cols; ++j) std::printf("%10zu", j);
    std::printf("\n");
    double worst = 0.0;
    for (std::size_t pos = 0; pos < show_rows; ++pos) {
      std::printf("%12zu", pos);
      for (std::size_t j = 0; j < show_cols; ++j) {
        const double angle = double(pos) / std::pow(10000.0, double(j - j % 2) / double(d));
        const double formula = j % 2 == 0 ? std::sin(angle) : std::cos(angle);
        worst = std::max(worst, std::abs(formula - double(pe.table()(pos, j))));
        std::printf("%10.6f", pe.table()(pos, j));
      }
      std::printf("\n");
    }
    std::printf("largest difference from the formula in this corner: %.2g\n\n", worst);

    // The toy sentences of reference 001 (wmathor/nlp-tutorial), by id in its source vocabulary
    // {P: 0, ich: 1, mochte: 2, ein: 3, bier: 4, cola: 5}:
    // "ich mochte ein bier P" and "ich mochte ein cola P". These are nlp-tutorial's ids, not
    // chapter 02's (ich: 4), so that they also fit the nlp-tutorial preset's vocabulary of 6.
    // [embed and encode]
    const tfm::TokenIds ids = {{1, 2, 3, 4, 0}, {1, 2, 3, 5, 0}};
    tfm::Rng rng(seed);
    // nn.Embedding's N(0, 1), or N(0, 1/d_model) with --set scaled_embedding_init=1.
    const float init_std = config.scaled_embedding_init ? 1.0f / std::sqrt(float(d)) : 1.0f;
    tfm::Embedding embedding(config.src_vocab_size, d, rng, init_std);
    tfm::Tensor3 x;
    {
      tfm::trace::Enable trace;
      tfm::trace::Scope scope("Input of the encoder");
      traced_tokens(ids, "ids of two sentences", "ids", "batch, len");
      x = embedding.forward(ids);  // weight[ids] * sqrt(d_model)
      pe.add_to(x);                // + pe[0 .. len-1], the same rows for every sentence
    }
    // [embed and encode]

    // How loud each part of the sum is. nn.Embedding starts from N(0, 1), so after the scaling a
    // token vector has RMS ~ sqrt(d_model); every row of the table has RMS exactly 1/sqrt(2)
    // (sin^2 + cos^2 = 1 for each pair of columns).
    const std::size_t len = ids.shape(1);
    tfm::Tensor3 positions = xt::zeros<float>({std::size_t{1}, len, d});
    pe.add_to(positions);
    tfm::Tensor3 scaled = x - positions;  // the scaled embeddings alone
    std::printf(
        "\nRMS (= std around 0) of the %zu x %zu token vectors and of the table rows 0..%zu:\n",
        ids.shape(0), len, len - 1);
    std::printf("  embedding rows weight[id]        %8.3f   (%s initialisation)\n",
                rms_of_rows(embedding.weight.value, ids),
                config.scaled_embedding_init ? "N(0, 1/d_model)" : "N(0, 1), as nn.Embedding's");
    std::printf("  scaled by sqrt(d_model) = %-6.2f %8.3f\n", double(embedding.scale()),
                rms(scaled));
    std::printf("  positional encoding              %8.3f\n", rms(positions));
    std::printf("  token signal / position signal   %8.1f\n", rms(scaled) / rms(positions));
    std::printf(
        "The scaling balances the two only for a table whose entries are ~1/sqrt(d_model), as "
        "when\n"
        "it is shared with the output projection (the paper); from N(0, 1) it makes tokens "
        "louder.\n");

    // An incremental decoder feeds one token at a time: the token of step t needs row t.
    tfm::Tensor3 step_token = xt::zeros<float>({std::size_t{1}, std::size_t{1}, d});
    const std::size_t t = std::min<std::size_t>(3, config.max_len - 1);
    pe.add_to(step_token, /*offset=*/t);
    std::printf(
        "\nOne token added at offset %zu receives row %zu: %s (reference 002 gave it row 0)\n", t,
        t,
        std::equal(step_token.begin(), step_token.end(), pe.table().data() + t * d) ? "yes" : "NO");

    // [heat map]
    const std::size_t shown = std::min<std::size_t>(100, config.max_len);
    tfm::HeatmapOptions options;
    options.title = "Positional encoding, positions 0-" + std::to_string(shown - 1) + ", d_model " +
                    std::to_string(d);
    options.x_label = "column (2i: sine, 2i+1: cosine)";
    options.y_label = "position";
    options.colour_scale = tfm::ColourScale::kDiverging;
    const tfm::Tensor2 corner = xt::view(pe.table(), xt::range(0, shown), xt::all());
    tfm::write_heatmap_svg(cli.value("--svg"), corner, options);
    // [heat map]
    std::cout << "\nwrote " << cli.value("--svg") << " (" << shown << " positions x " << d
              << " columns)\n";
    return 0;
  });
}
