// Chapter 10: the Transformer.
//
// The whole model: the masks built from the batch, the encoder stack, the decoder stack reading
// the encoder's output, and a last linear layer from d_model to the target vocabulary. Run on
// reference 000's test (the paper's base sizes, src [32, 10], trg [32, 20] of random ids), with
// the parameter count of every part, the time of the forward pass, and on a tiny model the
// causal mask at work.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tfm/core/no_grad.hpp"
#include "tfm/core/random.hpp"
#include "tfm/core/trace.hpp"
#include "tfm/engine/stopwatch.hpp"
#include "tfm/machinery/command_line.hpp"
#include "tfm/model/config.hpp"
#include "tfm/model/transformer.hpp"

namespace {

using tfm::Clock;

// torch.randint(0, vocab, (batch, len)) from a seeded Rng. Like randint it may draw id 0, which
// the masks then treat as padding, exactly as reference 000's masks (x != 0) do.
tfm::TokenIds random_ids(std::size_t batch, std::size_t len, std::size_t vocab, tfm::Rng& rng) {
  tfm::TokenIds ids = tfm::TokenIds::from_shape({batch, len});
  for (auto& id : ids) id = static_cast<std::int32_t>(rng.below(vocab));
  return ids;
}

// Prints one record one level less indented. The whole trace sits in the scope "Transformer";
// its title is left out, so that the deepest lines (attention inside a layer inside a stack)
// fit a page.
void print_one_level_up(tfm::trace::Record r) {
  if (r.depth == 0 && r.kind == tfm::trace::Record::Kind::kScope) return;
  r.depth = std::max(0, r.depth - 1);
  tfm::trace::print({r}, std::cout);
}

// Prints captured trace records in full for layer 0 of each stack; a later layer whose steps are
// those of layer 0 (same steps, same shapes) is summarised in one line.
void print_with_repeated_layers_folded(const std::vector<tfm::trace::Record>& records) {
  using Record = tfm::trace::Record;
  std::map<std::string, std::vector<Record>> first_layer;  // "encoder layer" -> its steps
  for (std::size_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    const std::string stack = r.text.substr(0, r.text.find_last_of(' '));  // "encoder layer"
    const bool layer =
        r.kind == Record::Kind::kScope && (stack == "encoder layer" || stack == "decoder layer");
    const std::size_t end = tfm::trace::scope_end(records, i);
    const std::vector<Record> body(records.begin() + i + 1, records.begin() + end);
    if (layer && first_layer.count(stack) && body == first_layer[stack]) {
      const auto steps = std::count_if(
          body.begin(), body.end(), [](const Record& s) { return s.kind == Record::Kind::kStep; });
      Record folded = r;
      folded.text +=
          "   (the same " + std::to_string(steps) + " steps and shapes as " + stack + " 0)";
      print_one_level_up(folded);
      i = end - 1;
      continue;
    }
    if (layer && !first_layer.count(stack)) first_layer[stack] = body;  // layer 0, shown in full
    print_one_level_up(r);
  }
}

// Multiply-adds of one forward pass, by part (2 FLOP each): where the work is.
struct Work {
  double projections = 0, feed_forward = 0, attention = 0, generator = 0;
  double total() const { return projections + feed_forward + attention + generator; }
};

Work forward_work(const tfm::Config& c) {
  const double B = double(c.batch_size), S = double(c.src_len), T = double(c.tgt_len);
  const double d = double(c.d_model), ff = double(c.d_ff), V = double(c.tgt_vocab_size);
  const double layers_e = double(c.n_encoder_layers), layers_d = double(c.n_decoder_layers);
  Work w;
  // Encoder layer: W_Q, W_K, W_V, W_O on S rows; Q K^T and A V; two FFN products.
  w.projections += layers_e * 4 * B * S * d * d;
  w.attention += layers_e * 2 * B * S * S * d;
  w.feed_forward += layers_e * 2 * B * S * d * ff;
  // Decoder layer: self-attention on T rows; cross-attention's W_Q, W_O on T rows and W_K, W_V
  // on the S rows of memory; both attentions' two products; two FFN products.
  w.projections += layers_d * (4 * B * T * d * d + 2 * B * T * d * d + 2 * B * S * d * d);
  w.attention += layers_d * (2 * B * T * T * d + 2 * B * T * S * d);
  w.feed_forward += layers_d * 2 * B * T * d * ff;
  w.generator = B * T * d * V;
  return w;
}

void print_work(const tfm::Config& config, double seconds) {
  const Work w = forward_work(config);
  const double total = 2 * w.total();
  std::printf("Matrix products of one forward pass: %.1f GFLOP (%.1f GFLOP/s in the time above)\n",
              total * 1e-9, total * 1e-9 / seconds);
  const std::pair<const char*, double> parts[] = {{"projections W_Q, W_K, W_V, W_O", w.projections},
                                                  {"feed-forward networks", w.feed_forward},
                                                  {"generator", w.generator},
                                                  {"attention: Q K^T and A V", w.attention}};
  for (const auto& [name, work] : parts)
    std::printf("  %-32s %7.2f GFLOP  %5.1f %%\n", name, 2 * work * 1e-9, 100 * 2 * work / total);
  std::printf("\n");
}

// [parameter groups]
// Parameter count per part of the model, from the registry's names: the embedding table(s),
// every layer of each stack, and the generator.
std::vector<std::pair<std::string, std::size_t>> parameter_groups(
    const tfm::ParameterList& params) {
  std::vector<std::pair<std::string, std::size_t>> groups;
  for (const tfm::ParameterRef& p : params) {
    std::string group = p.name.substr(0, p.name.find('.'));  // "embedding", "generator", ...
    if (group == "encoder" || group == "decoder") {          // "encoder.layers.3"
      const std::size_t layer_end = p.name.find('.', group.size() + std::string(".layers.").size());
      group = p.name.substr(0, layer_end);
    }
    if (groups.empty() || groups.back().first != group) groups.emplace_back(group, 0);
    groups.back().second += p.size;
  }
  return groups;
}
// [parameter groups]

void print_mask(const char* title, const tfm::Mask& mask, std::size_t b) {
  std::printf("  %s\n", title);
  for (std::size_t i = 0; i < mask.shape(1); ++i) {
    std::printf("    ");
    for (std::size_t j = 0; j < mask.shape(2); ++j) std::printf(" %d", int(mask(b, i, j)));
    std::printf("\n");
  }
}

// Largest |a[0, i, :] - b[0, i, :]| of every position i of sentence 0.
std::vector<float> largest_difference_per_position(const tfm::Tensor3& a, const tfm::Tensor3& b) {
  std::vector<float> out(a.shape(1), 0.0f);
  for (std::size_t i = 0; i < a.shape(1); ++i)
    for (std::size_t v = 0; v < a.shape(2); ++v)
      out[i] = std::max(out[i], std::abs(a(0, i, v) - b(0, i, v)));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  return tfm::run_program([&] {
    tfm::CommandLine cli("ch10_transformer",
                         "Chapter 10: the whole Transformer on reference 000's test input, its "
                         "parameters, the time of a forward pass, and the causal mask at work.");
    cli.config_options("csdn", "override one hyper-parameter (batch_size, src_len, ...)")
        .option("--seed", "N", "seed of the weights and of the random token ids", "0")
        .option("--repeat", "N", "timed forward passes after the traced one (median printed)", "1")
        .flag("--eval",
              "time in evaluation mode (dropout off, nothing kept for backward) instead of "
              "training mode");
    if (!cli.parse(argc, argv)) return 0;
    tfm::Config config = tfm::config_from_command_line(cli);
    const auto seed = cli.count("--seed");
    const std::size_t repeat = cli.count("--repeat", 1, 1000);

    // [build model]
    const tfm::Clock::time_point build_start = Clock::now();
    tfm::Transformer model(config, seed);
    const double build_seconds = tfm::seconds_since(build_start);
    // [build model]
    std::printf(
        "Preset '%s': vocabulary %zu, d_model %zu, %zu heads, %zu + %zu layers, d_ff %zu, "
        "dropout %.2f, %s embedding\n",
        config.preset.c_str(), config.tgt_vocab_size, config.d_model, config.n_heads,
        config.n_encoder_layers, config.n_decoder_layers, config.d_ff, double(config.dropout),
        config.shared_embedding ? "one shared" : "separate");
    std::printf("(built and initialised in %.2f s)\n\n", build_seconds);

    const tfm::ParameterList params = tfm::parameters_of(model);
    std::printf("Parameters by part (the registry's names)\n");
    for (const auto& [group, count] : parameter_groups(params))
      std::printf("  %-20s %12zu\n", group.c_str(), count);
    std::printf("  %-20s %12zu   (chapter 01's formula: %zu)\n\n", "total", params.count(),
                tfm::total_parameters(config));

    // [reference test]
    // Reference 000's test: src = torch.randint(0, vocab, (32, 10)), trg = ... (32, 20).
    tfm::Rng rng(seed);
    const std::size_t B = config.batch_size, S = config.src_len, T = config.tgt_len;
    const tfm::TokenIds src = random_ids(B, S, config.src_vocab_size, rng);
    const tfm::TokenIds trg = random_ids(B, T, config.tgt_vocab_size, rng);
    std::vector<tfm::trace::Record> trace_records;
    tfm::Tensor3 out;
    {
      tfm::trace::Capture capture;  // the library's own trace, printed below with layers folded
      out = model.forward(src, trg);
      trace_records = capture.records();
    }
    // [reference test]
    std::printf(
        "The traced forward pass: %zu lines; a later layer that repeats layer 0's steps "
        "is one line\n",
        trace_records.size());
    print_with_repeated_layers_folded(trace_records);
    std::printf("out.shape = %s\n\n", tfm::shape_string(out.shape()).c_str());

    // [time forward]
    // The traced pass above was the warm-up; now the same forward with the trace off.
    // Evaluation mode is PyTorch's model.eval() with torch.no_grad(): dropout off, and no layer
    // keeps anything for a backward that will not come.
    model.set_training(!cli.flag_set("--eval"));
    std::optional<tfm::NoGrad> no_grad;
    if (cli.flag_set("--eval")) no_grad.emplace();
    std::vector<double> times;
    for (std::size_t r = 0; r < repeat; ++r) {
      const Clock::time_point start = Clock::now();
      out = model.forward(src, trg);
      times.push_back(tfm::seconds_since(start));
    }
    std::sort(times.begin(), times.end());
    // [time forward]
    std::printf("Forward pass, %s mode: %.3f s (median of %zu, after one warm-up pass)\n",
                cli.flag_set("--eval") ? "evaluation" : "training", times[times.size() / 2],
                repeat);
    print_work(config, times[times.size() / 2]);

    // [masks]
    // On a tiny model: the masks the Transformer builds from a padded batch of one sentence pair.
    tfm::Transformer tiny(tfm::preset("tiny"), seed);
    tiny.set_training(false);
    tfm::Rng tiny_rng(seed + 1);
    tfm::TokenIds tiny_src = random_ids(1, 5, 15, tiny_rng) + 1;  // ids 1..15: no padding yet
    tfm::TokenIds tiny_tgt = random_ids(1, 6, 15, tiny_rng) + 1;
    tiny_src(0, 4) = tfm::kPadId;  // the source's last position is padding
    const tfm::BatchMasks masks = tfm::make_masks(tiny_src, tiny_tgt);
    // [masks]
    std::printf("The masks of a tiny batch: source of 4 tokens + 1 <pad>, target of 6 tokens\n");
    print_mask("target mask [6, 6] (decoder self-attention: causal; 1 = may attend)", masks.target,
               0);
    print_mask("cross mask [6, 5] (decoder -> encoder: the source <pad> is blocked)", masks.cross,
               0);

    // [causal check]
    // Change the target token at position 3. With the causal mask, positions 0..2 cannot see
    // it: their logits stay exactly the same. With reference 000's target mask (padding only,
    // no causal part) every position sees the future and every position's logits change.
    const std::size_t changed_at = 3;
    tfm::TokenIds changed = tiny_tgt;
    changed(0, changed_at) = changed(0, changed_at) % 15 + 1;
    const tfm::Tensor3 before = tiny.forward(tiny_src, tiny_tgt);
    const tfm::Tensor3 after = tiny.forward(tiny_src, changed);

    auto forward_with_padding_only_mask = [&](const tfm::TokenIds& tgt) {
      const tfm::Mask padding_only = tfm::padding_mask(tgt, tgt.shape(1));  // reference 000's
      const tfm::Tensor3 memory = tiny.encoder.forward(tiny_src, &masks.source);
      return tiny.generator.forward(tiny.decoder.forward(tgt, memory, &padding_only, &masks.cross));
    };
    const tfm::Tensor3 before_000 = forward_with_padding_only_mask(tiny_tgt);
    const tfm::Tensor3 after_000 = forward_with_padding_only_mask(changed);
    // [causal check]
    const std::vector<float> ours = largest_difference_per_position(before, after);
    const std::vector<float> reference = largest_difference_per_position(before_000, after_000);
    std::printf(
        "\nTarget token %zu changed from %d to %d: largest change of the logits per position\n",
        changed_at, tiny_tgt(0, changed_at), changed(0, changed_at));
    std::printf("  %-9s %22s %30s\n", "position", "causal mask (ours)",
                "padding only (reference 000)");
    for (std::size_t i = 0; i < ours.size(); ++i)
      std::printf("  %-9zu %22.3g %30.3g\n", i, double(ours[i]), double(reference[i]));
    return 0;
  });
}
