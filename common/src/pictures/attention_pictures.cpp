#include "tfm/pictures/attention_pictures.hpp"

#include <cstdio>
#include <limits>
#include <xtensor/xview.hpp>

#include "tfm/decode/decoding.hpp"
#include "tfm/pictures/heatmap.hpp"
#include "tfm/support/text_file.hpp"

namespace tfm {

std::vector<std::string> token_labels(const Vocabulary& vocabulary, const TokenIds& ids,
                                      std::size_t b) {
  std::vector<std::string> out;
  for (std::size_t j = 0; j < ids.shape(1); ++j) out.push_back(vocabulary.symbol(ids(b, j)));
  return out;
}

void print_weight_grid(const Tensor4& weights, std::size_t b, std::size_t h,
                       const std::vector<std::string>& query_labels,
                       const std::vector<std::string>& key_labels, int label_width, int decimals) {
  std::printf("%*s", label_width, "");
  for (const std::string& k : key_labels) std::printf("%8s", k.c_str());
  std::printf("\n");
  for (std::size_t i = 0; i < query_labels.size(); ++i) {
    std::printf("%*s", label_width, query_labels[i].c_str());
    for (std::size_t j = 0; j < key_labels.size(); ++j)
      std::printf("%8.*f", decimals, double(weights(b, h, i, j)));
    std::printf("\n");
  }
}

Tensor2 attention_head(const Tensor4& weights, std::size_t b, std::size_t h) {
  return xt::view(weights, b, h);  // weights[b, h, :, :]
}

Tensor2 heads_side_by_side(const Tensor4& weights, std::size_t b) {
  const std::size_t H = weights.shape(1), Lq = weights.shape(2), Lk = weights.shape(3);
  Tensor2 grid = Tensor2::from_shape({Lq, H * (Lk + 1) - 1});
  grid.fill(std::numeric_limits<float>::quiet_NaN());
  for (std::size_t h = 0; h < H; ++h)  // head h fills columns h (Lk + 1) .. h (Lk + 1) + Lk - 1
    xt::view(grid, xt::all(), xt::range(h * (Lk + 1), h * (Lk + 1) + Lk)) = xt::view(weights, b, h);
  return grid;
}

std::string attention_heatmap_svg(const std::string& title, const Tensor2& grid,
                                  const std::vector<std::string>& query_labels,
                                  const std::vector<std::string>& key_labels, bool unit_scale) {
  HeatmapOptions options;
  options.title = title;
  options.x_label = "key";
  options.y_label = "query";
  options.row_labels = query_labels;
  options.column_labels = key_labels;
  if (unit_scale) {
    options.min_value = 0.0f;
    options.max_value = 1.0f;
  }
  return heatmap_svg(grid, options);
}

void write_attention_heatmap(const std::string& path, const std::string& title, const Tensor2& grid,
                             const std::vector<std::string>& query_labels,
                             const std::vector<std::string>& key_labels, bool unit_scale) {
  write_text_file(path, attention_heatmap_svg(title, grid, query_labels, key_labels, unit_scale));
}

std::vector<std::string> write_attention_maps(Transformer& model, const TokenIds& src,
                                              const TokenIds& tgt_in, const Vocabulary& source,
                                              const Vocabulary& target, std::size_t layer,
                                              std::size_t head, const std::string& prefix) {
  EvaluationMode eval(model);
  model.forward(src, tgt_in);  // every attention keeps its weights for the pictures
  const auto src_labels = token_labels(source, src, 0),
             tgt_labels = token_labels(target, tgt_in, 0);
  const std::string where =
      " (layer " + std::to_string(layer) + ", head " + std::to_string(head) + ")";
  struct Picture {
    std::string file;
    const char* title;
    const Tensor4& weights;
    const std::vector<std::string>& queries;
    const std::vector<std::string>& keys;
  };
  const Picture pictures[] = {
      {prefix + "encoder_self.svg", "Encoder self-attention",
       model.encoder.layers.at(layer).self_attn.attention_weights(), src_labels, src_labels},
      {prefix + "decoder_self.svg", "Decoder self-attention (causal)",
       model.decoder.layers.at(layer).self_attn.attention_weights(), tgt_labels, tgt_labels},
      {prefix + "cross.svg", "Cross-attention: decoder queries, encoder keys",
       model.decoder.layers.at(layer).cross_attn.attention_weights(), tgt_labels, src_labels},
  };
  std::vector<std::string> written;
  for (const Picture& p : pictures) {
    write_attention_heatmap(p.file, p.title + where, attention_head(p.weights, 0, head), p.queries,
                            p.keys, /*unit_scale=*/false);
    written.push_back(p.file);
  }
  return written;
}

}  // namespace tfm
