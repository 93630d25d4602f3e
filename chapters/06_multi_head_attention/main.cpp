// Chapter 06: multi-head attention.
//
// One attention sees the sentence one way. Multi-head attention projects the queries, keys and
// values h times into narrower spaces (d_k = d_model / h), lets every head attend on its own,
// puts the h results side by side and mixes them with one more projection, W_O. The same layer
// does the encoder's self-attention (queries, keys and values from one sequence) and the
// decoder's cross-attention (queries from the target, keys and values from the encoder output).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "tfm/core/random.hpp"
#include "tfm/core/trace.hpp"
#include "tfm/layers/mask.hpp"
#include "tfm/layers/multi_head_attention.hpp"
#include "tfm/machinery/command_line.hpp"
#include "tfm/model/config.hpp"
#include "tfm/pictures/attention_pictures.hpp"
#include "tfm/pictures/heatmap.hpp"
#include "tfm/tasks/toy_translation.hpp"

namespace {
// The components of the lines this program adds to the shape trace.
constexpr tfm::trace::Component traced_input("Input");
constexpr tfm::trace::Component traced_chapter("Chapter");
}  // namespace

int main(int argc, char** argv) {
  return tfm::run_program([&] {
    tfm::CommandLine cli(
        "ch06_multi_head_attention",
        "Chapter 06: multi-head attention (projections, split into heads, attention "
        "per head, concatenation, output projection), forward and backward.");
    cli.config_options("nlp-tutorial")
        .config_keys_used({"d_model", "n_heads", "attention_bias"})
        .option("--seed", "N", "seed of the weights and of the stand-in token vectors", "0")
        .option("--svg", "PATH", "heat map of every head's weights for the first sentence",
                "multi_head_attention.svg");
    if (!cli.parse(argc, argv)) return 0;
    tfm::Config config = tfm::config_from_command_line(cli);
    const std::size_t d = config.d_model;

    // [build layer]
    tfm::Rng rng(cli.count("--seed"));
    tfm::MultiHeadAttention mha(d, config.n_heads, config.attention_bias, rng);
    // [build layer]
    std::printf(
        "Preset '%s': d_model = %zu, h = %zu heads, d_k = d_v = d_model / h = %zu, bias: %s\n",
        config.preset.c_str(), d, mha.n_heads(), mha.d_k(), config.attention_bias ? "yes" : "no");
    tfm::ParameterList params = tfm::parameters_of(mha);
    for (const tfm::ParameterRef& p : params)
      std::printf("  %-10s %s\n", p.name.c_str(), tfm::shape_string(p.shape).c_str());
    std::printf("  %zu parameters\n\n", params.count());

    // nlp-tutorial's two sentence pairs (chapter 02): "ich mochte ein bier <pad>" -> "<bos> i want
    // a beer .", and the same with cola / coke. The layer only needs vectors of width d_model:
    // stand-ins drawn from N(0, 1), the scale LayerNorm gives every later layer's input.
    const tfm::ToyTranslation data;
    const tfm::Batch batch = data.all();
    const std::size_t B = batch.size(), S = batch.src.shape(1), T = batch.tgt_in.shape(1);
    const tfm::Tensor3 x = tfm::random_normal(B, S, d, rng);

    // [self-attention]
    // Encoder self-attention: queries, keys and values all come from x; only padding is blocked.
    const tfm::Mask src_mask = tfm::padding_mask(batch.src, /*len_q=*/S);
    tfm::Tensor3 self_output;
    {
      tfm::trace::Enable trace;
      tfm::trace::Scope scope("Self-attention: query input = memory = x");
      traced_input(x, "source stand-ins", "x", "batch, src_len, d_model");
      traced_input(src_mask, "source padding mask", "src_mask", "batch, src_len, src_len");
      self_output = mha.forward(x, x, &src_mask);
    }
    // [self-attention]

    const std::vector<std::string> src_words =
        tfm::token_labels(data.source_vocabulary(), batch.src, 0);
    std::printf("\nSentence 0, head 0: every row sums to 1, the <pad> column is 0\n");
    tfm::print_weight_grid(mha.attention_weights(), 0, 0, src_words, src_words);
    if (mha.n_heads() > 1) {
      std::printf("Sentence 0, head 1: the same words, other projections, other weights\n");
      tfm::print_weight_grid(mha.attention_weights(), 0, 1, src_words, src_words);
    }

    // Every head's weights for sentence 0, four heads to a row, one colour scale for all.
    tfm::HeatmapOptions options;
    options.title = "Self-attention weights of sentence 0, one map per head (untrained)";
    options.x_label = "key";
    options.y_label = "query";
    options.row_labels = src_words;
    options.column_labels = src_words;
    options.min_value = 0.0f;
    std::vector<tfm::Tensor2> heads;
    std::vector<std::string> head_titles;
    for (std::size_t h = 0; h < mha.n_heads(); ++h) {
      heads.push_back(tfm::attention_head(mha.attention_weights(), 0, h));
      head_titles.push_back("head " + std::to_string(h));
    }
    tfm::write_heatmap_panels_svg(cli.value("--svg"), heads, head_titles, 4, options);
    std::printf("Heat map of all %zu heads: %s\n", mha.n_heads(), cli.value("--svg").c_str());

    // [self-attention backward]
    // Backward with an upstream gradient of ones. x fed all three projections, so its gradient
    // is the sum of the query input's and the memory's.
    const tfm::Tensor3 ones = xt::ones<float>(self_output.shape());
    std::printf("\n");
    {
      tfm::trace::Enable trace;
      tfm::trace::Scope scope("Self-attention backward");
      const tfm::MultiHeadAttention::Grads grads = mha.backward(ones);
      const tfm::Tensor3 grad_x = grads.query_input + grads.memory;
      traced_chapter(grad_x, "grad_x = grad_query + grad_memory", "grad_x",
                     "batch, src_len, d_model");
      for (const tfm::ParameterRef& p : params)
        tfm::trace::write_step("Chapter", "gradient of " + p.name, p.name + ".grad",
                               tfm::shape_string(p.shape), "");
    }
    // [self-attention backward]
    // With biases: the key bias adds the same q . b_K to a whole row of scores, which the softmax
    // ignores, so its gradient is 0 up to rounding; the other biases do learn.
    for (const tfm::ParameterRef& p : params)
      if (p.name.size() > 5 && p.name.compare(p.name.size() - 5, 5, ".bias") == 0) {
        float largest = 0.0f;
        for (std::size_t i = 0; i < p.size; ++i) largest = std::max(largest, std::abs(p.grad[i]));
        std::printf("largest |gradient| of %-10s %.1e\n", p.name.c_str(), double(largest));
      }

    // [cross-attention]
    // Decoder cross-attention: queries from the target (6 positions), keys and values from the
    // encoder's output (5 positions; here x stands in for it, LayerNorm gives the real one the
    // same scale); the source padding is blocked for every target position. (A decoder layer
    // has its own cross-attention layer; this chapter reuses the one above for brevity.)
    const tfm::Tensor3 y = tfm::random_normal(B, T, d, rng);
    const tfm::Tensor3& encoder_output = x;
    const tfm::Mask cross_mask = tfm::padding_mask(batch.src, /*len_q=*/T);
    std::printf("\n");
    {
      tfm::trace::Enable trace;
      tfm::trace::Scope scope("Cross-attention: query input = y (target), memory = encoder output");
      traced_input(y, "target stand-ins", "y", "batch, tgt_len, d_model");
      traced_input(cross_mask, "source padding mask", "cross_mask", "batch, tgt_len, src_len");
      mha.forward(y, encoder_output, &cross_mask);
    }
    // [cross-attention]
    std::printf("\nSentence 0, head 0 of cross-attention: target words ask, source words answer\n");
    tfm::print_weight_grid(mha.attention_weights(), 0, 0,
                           tfm::token_labels(data.target_vocabulary(), batch.tgt_in, 0), src_words);

    std::printf("\n");
    {
      tfm::trace::Enable trace;
      tfm::trace::Scope scope("Cross-attention backward");
      mha.backward(xt::ones<float>({B, T, d}));
    }
    return 0;
  });
}
