#include "tfm/pictures/inspection.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <xtensor/xview.hpp>

#include "tfm/decode/decoding.hpp"
#include "tfm/layers/softmax.hpp"
#include "tfm/pictures/attention_pictures.hpp"

namespace tfm {

const char* attention_kind_name(AttentionKind kind) {
  switch (kind) {
    case AttentionKind::kEncoderSelf:
      return "encoder_self";
    case AttentionKind::kDecoderSelf:
      return "decoder_self";
    case AttentionKind::kCross:
      return "cross";
  }
  return "?";
}

const char* attention_kind_title(AttentionKind kind) {
  switch (kind) {
    case AttentionKind::kEncoderSelf:
      return "Encoder self-attention: the input reads itself";
    case AttentionKind::kDecoderSelf:
      return "Decoder self-attention (causal): the output reads what it wrote";
    case AttentionKind::kCross:
      return "Cross-attention: the output (rows) reads the input (columns)";
  }
  return "?";
}

Tensor2 Inspection::attention(AttentionKind kind, std::size_t layer, std::size_t head) const {
  const std::vector<Tensor4>& layers = kind == AttentionKind::kEncoderSelf   ? encoder_self
                                       : kind == AttentionKind::kDecoderSelf ? decoder_self
                                                                             : cross;
  if (layer >= layers.size())
    throw std::out_of_range(std::string(attention_kind_name(kind)) + ": no layer " +
                            std::to_string(layer) + " (the model has " +
                            std::to_string(layers.size()) + ")");
  if (head >= layers[layer].shape(1))
    throw std::out_of_range(std::string(attention_kind_name(kind)) + ": no head " +
                            std::to_string(head) + " (the model has " +
                            std::to_string(layers[layer].shape(1)) + ")");
  return attention_head(layers[layer], 0, head);
}

std::pair<std::vector<std::string>, std::vector<std::string>> Inspection::attention_labels(
    AttentionKind kind, const Vocabulary& source, const Vocabulary& target) const {
  const std::vector<std::string> source_labels = token_labels(source, src, 0);
  const std::vector<std::string> decoder_labels = token_labels(target, shifted_right(output), 0);
  switch (kind) {
    case AttentionKind::kEncoderSelf:
      return {source_labels, source_labels};
    case AttentionKind::kDecoderSelf:
      return {decoder_labels, decoder_labels};
    case AttentionKind::kCross:
      break;
  }
  return {decoder_labels, source_labels};
}

// [inspect]
Inspection inspect(Transformer& model, const TokenIds& src, const TokenIds& output,
                   std::size_t top_k) {
  // src [1, S], output [1, T] -> logits [1, T, V] of <bos> + output[:-1], and every attention
  require(src.shape(0) == 1 && output.shape(0) == 1 && output.shape(1) > 0 && src.shape(1) > 0,
          "inspect",
          "src " + shape_string(src.shape()) + " and output " + shape_string(output.shape()) +
              " must be one non-empty row each");
  Inspection seen{src, output, {}, {}, {}, {}};
  Tensor3 logits;
  {
    EvaluationMode eval(model);
    logits = model.forward(src, shifted_right(output));  // the attentions keep their weights
  }
  const std::size_t T = logits.shape(1), V = logits.shape(2), k = std::min(top_k, V);
  std::vector<float> probabilities(V);
  std::vector<std::int32_t> order(V);
  for (std::size_t t = 0; t < T; ++t) {
    softmax_rows(&logits(0, t, 0), probabilities.data(), 1, V);
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                      [&](std::int32_t a, std::int32_t b) {
                        return probabilities[a] > probabilities[b] ||
                               (probabilities[a] == probabilities[b] && a < b);
                      });
    std::vector<TokenChoice> row;
    for (std::size_t i = 0; i < k; ++i) row.push_back({order[i], probabilities[order[i]]});
    seen.top_choices.push_back(std::move(row));
  }
  for (const EncoderLayer& layer : model.encoder.layers)
    seen.encoder_self.push_back(layer.self_attn.attention_weights());
  for (const DecoderLayer& layer : model.decoder.layers) {
    seen.decoder_self.push_back(layer.self_attn.attention_weights());
    seen.cross.push_back(layer.cross_attn.attention_weights());
  }
  return seen;
}
// [inspect]

}  // namespace tfm
