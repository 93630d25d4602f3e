// Chapter 09: the encoder stack and the decoder stack.
//
// Each stack turns token ids into vectors (embedding times sqrt(d_model), plus the positional
// encoding, then dropout) and runs them through N layers of chapter 08, each on the previous
// one's output. Every decoder layer reads the same encoder output, the "memory".
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "tfm/core/random.hpp"
#include "tfm/core/trace.hpp"
#include "tfm/layers/embedding.hpp"
#include "tfm/layers/mask.hpp"
#include "tfm/machinery/command_line.hpp"
#include "tfm/model/config.hpp"
#include "tfm/model/decoder.hpp"
#include "tfm/model/encoder.hpp"
#include "tfm/tasks/toy_translation.hpp"

namespace {

// The components of the lines this program adds to the shape trace.
constexpr tfm::trace::Component traced_input("Input");

// Prints captured trace records with every layer folded into two lines: its title with how many
// steps it took (chapter 08 shows them one by one), and its last step, the layer's output.
void print_with_layers_folded(const std::vector<tfm::trace::Record>& records) {
  using Record = tfm::trace::Record;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    const bool layer = r.kind == Record::Kind::kScope && (r.text.rfind("encoder layer ", 0) == 0 ||
                                                          r.text.rfind("decoder layer ", 0) == 0);
    if (!layer) {
      tfm::trace::print({r}, std::cout);
      continue;
    }
    const std::size_t end = tfm::trace::scope_end(records, i);
    const auto steps = std::count_if(records.begin() + i + 1, records.begin() + end,
                                     [](const Record& s) { return s.kind == Record::Kind::kStep; });
    Record title = r, output = records[end - 1];
    title.text += "   (" + std::to_string(steps) + " steps, as in chapter 08; its output:)";
    output.depth = r.depth + 1;
    tfm::trace::print({title, output}, std::cout);
    i = end - 1;
  }
}

// The vocabulary entries whose row of the table received a non-zero gradient.
std::string rows_with_gradient(const tfm::Embedding& table, const tfm::Vocabulary& vocabulary) {
  std::string out;
  for (std::size_t v = 0; v < table.vocab_size(); ++v) {
    bool nonzero = false;
    for (std::size_t j = 0; j < table.d_model(); ++j)
      nonzero = nonzero || table.weight.grad(v, j) != 0.0f;
    if (nonzero) out += " " + vocabulary.symbol(static_cast<std::int32_t>(v));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  return tfm::run_program([&] {
    tfm::CommandLine cli("ch09_stacks",
                         "Chapter 09: the encoder and decoder stacks on nlp-tutorial's sentence "
                         "pairs, forward and backward, with the shape of every step.");
    cli.config_options("nlp-tutorial")
        .config_keys_used({"d_model", "n_heads", "d_ff", "dropout", "attention_bias", "linear_bias",
                           "max_len", "n_encoder_layers", "n_decoder_layers"})
        .option("--seed", "N", "seed of the weights, the dropout masks and the upstream gradient",
                "0");
    if (!cli.parse(argc, argv)) return 0;
    tfm::Config config = tfm::config_from_command_line(cli);
    const std::size_t seed = cli.count("--seed");

    // nlp-tutorial's two sentence pairs, with their own word vocabularies (chapter 02).
    const tfm::ToyTranslation data;
    const tfm::Batch batch = data.all();
    config.src_vocab_size = data.source_vocabulary().size();
    config.tgt_vocab_size = data.target_vocabulary().size();
    config.validate();
    std::printf(
        "Preset '%s': d_model = %zu, %zu + %zu layers, dropout p = %.2f\n"
        "Vocabularies: %zu source and %zu target words (with <pad>, <bos>, <eos>, <unk>)\n\n",
        config.preset.c_str(), config.d_model, config.n_encoder_layers, config.n_decoder_layers,
        double(config.dropout), config.src_vocab_size, config.tgt_vocab_size);

    // [build stacks]
    tfm::Rng rng(seed);
    tfm::Embedding src_embedding(config.src_vocab_size, config.d_model, rng);
    tfm::Embedding tgt_embedding(config.tgt_vocab_size, config.d_model, rng);
    tfm::Encoder encoder(config, src_embedding, rng);
    tfm::Decoder decoder(config, tgt_embedding, rng);
    // [build stacks]

    // [run stacks]
    const std::size_t S = batch.src.shape(1), T = batch.tgt_in.shape(1);
    const tfm::Mask src_mask = tfm::padding_mask(batch.src, S);
    const tfm::Mask tgt_mask = tfm::decoder_self_mask(batch.tgt_in);
    const tfm::Mask cross_mask = tfm::padding_mask(batch.src, T);
    tfm::Tensor3 memory, hidden;
    std::vector<tfm::trace::Record> trace_records;
    {
      tfm::trace::Capture capture;  // the library's trace, folded below for readability
      traced_input(batch.src, "source ids", "src", "batch, src_len");
      memory = encoder.forward(batch.src, &src_mask);
      traced_input(batch.tgt_in, "target ids (<bos> first)", "tgt_in", "batch, tgt_len");
      hidden = decoder.forward(batch.tgt_in, memory, &tgt_mask, &cross_mask);
      trace_records = capture.records();
    }
    // [run stacks]
    print_with_layers_folded(trace_records);

    // [run backward]
    // A stand-in upstream gradient dL/d(hidden) from N(0, 1). The decoder's backward returns
    // the gradient of memory, summed over its layers (every one of them read memory); the
    // encoder's backward starts from it. Each stack ends by scattering its gradient into the
    // rows of its embedding table that its ids looked up.
    tfm::Tensor3 grad_hidden = tfm::Tensor3::from_shape(hidden.shape());
    rng.fill_normal(grad_hidden, 0.0f, 1.0f);
    {
      tfm::trace::Capture capture;  // folded like the forward: chapter 08 shows the layers' steps
      traced_input(grad_hidden, "upstream gradient", "grad_hidden", "batch, tgt_len, d_model");
      const tfm::Tensor3 grad_memory = decoder.backward(grad_hidden);
      encoder.backward(grad_memory);
      trace_records = capture.records();
    }
    // [run backward]
    std::printf("\n");
    print_with_layers_folded(trace_records);
    std::printf("\nRows with a gradient\n  source table:%s\n  target table:%s\n",
                rows_with_gradient(src_embedding, data.source_vocabulary()).c_str(),
                rows_with_gradient(tgt_embedding, data.target_vocabulary()).c_str());
    std::printf(
        "(the source <pad> row gets none: no real position attends to it, and the\n"
        " decoder never reads it)\n");

    // [shared table]
    // Reference 000 shares one table between source and target. Here one table of
    // max(source, target) rows serves both stacks: its gradient is the sum of the two scatters,
    // the encoder's at the source ids and the decoder's at the target ids.
    tfm::Rng shared_rng(seed);
    tfm::Embedding shared(std::max(config.src_vocab_size, config.tgt_vocab_size), config.d_model,
                          shared_rng);
    tfm::Encoder shared_encoder(config, shared, shared_rng);
    tfm::Decoder shared_decoder(config, shared, shared_rng);
    shared_decoder.forward(batch.tgt_in, shared_encoder.forward(batch.src, &src_mask), &tgt_mask,
                           &cross_mask);
    const tfm::Tensor3 grad_shared_memory = shared_decoder.backward(grad_hidden);
    const tfm::Tensor2 decoder_part = shared.weight.grad;
    shared_encoder.backward(grad_shared_memory);
    const tfm::Tensor2 encoder_part = shared.weight.grad - decoder_part;
    // [shared table]
    std::printf("\nOne shared table: the size of the gradient of every row, by stack\n");
    std::printf("  %-4s %-8s %-8s %10s %10s %10s\n", "row", "source", "target", "encoder",
                "decoder", "table");
    for (std::size_t v = 0; v < shared.vocab_size(); ++v) {
      const auto norm = [&](const tfm::Tensor2& g) {
        double sum = 0.0;
        for (std::size_t j = 0; j < shared.d_model(); ++j) sum += double(g(v, j)) * g(v, j);
        return std::sqrt(sum);
      };
      const auto word = [&](const tfm::Vocabulary& vocabulary) {
        return v < vocabulary.size() ? vocabulary.symbol(static_cast<std::int32_t>(v)) : "";
      };
      std::printf("  %-4zu %-8s %-8s %10.3f %10.3f %10.3f\n", v,
                  word(data.source_vocabulary()).c_str(), word(data.target_vocabulary()).c_str(),
                  norm(encoder_part), norm(decoder_part), norm(shared.weight.grad));
    }
    return 0;
  });
}
