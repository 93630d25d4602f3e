/// \file attention_pictures.hpp
/// \brief Pictures (chapters 05-11): attention weights as a grid of numbers or as heat maps, of one
/// layer or of a whole trained model, with the tokens as labels.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tfm/core/tensor.hpp"
#include "tfm/data/vocabulary.hpp"
#include "tfm/model/transformer.hpp"

namespace tfm {

/// The symbols of row b of `ids` `[B, L]`: one label per position, for grids and heat maps.
std::vector<std::string> token_labels(const Vocabulary& vocabulary, const TokenIds& ids,
                                      std::size_t b);

/// Prints weights[b, h] (weights `[B, H, Lq, Lk]`) as a grid: one row per query, labelled by
/// `query_labels` in a column `label_width` wide, one column of 8 characters per key, headed by
/// `key_labels`; every weight with `decimals` digits.
void print_weight_grid(const Tensor4& weights, std::size_t b, std::size_t h,
                       const std::vector<std::string>& query_labels,
                       const std::vector<std::string>& key_labels, int label_width = 10,
                       int decimals = 3);

/// weights[b, h] as a matrix `[Lq, Lk]`: one head's attention, rows = queries.
Tensor2 attention_head(const Tensor4& weights, std::size_t b, std::size_t h);

/// All heads of sentence b side by side in one matrix, `[Lq, H * (Lk + 1) - 1]`, with one NaN
/// column (drawn grey) between two heads.
Tensor2 heads_side_by_side(const Tensor4& weights, std::size_t b);

/// The heat map of write_attention_heatmap as an SVG string (for a web page).
std::string attention_heatmap_svg(const std::string& title, const Tensor2& grid,
                                  const std::vector<std::string>& query_labels,
                                  const std::vector<std::string>& key_labels,
                                  bool unit_scale = true);

/// Writes `grid` `[Lq, Lk]` of attention weights as an SVG heat map titled `title`, rows labelled
/// by the queries, columns by the keys. `unit_scale`: colours span [0, 1] (weights are
/// probabilities: maps compare), else the grid's own range.
void write_attention_heatmap(const std::string& path, const std::string& title, const Tensor2& grid,
                             const std::vector<std::string>& query_labels,
                             const std::vector<std::string>& key_labels, bool unit_scale = true);

/// One example's attention in a trained model, as three heat maps of layer `layer`, head `head`:
/// the encoder's self-attention, the decoder's causal self-attention and the cross-attention,
/// after a forward of src `[1, S]` and tgt_in `[1, T]` in evaluation mode. Returns the files
/// written: `prefix` + encoder_self.svg, decoder_self.svg and cross.svg (by default
/// attention_encoder_self.svg, ...).
std::vector<std::string> write_attention_maps(Transformer& model, const TokenIds& src,
                                              const TokenIds& tgt_in, const Vocabulary& source,
                                              const Vocabulary& target, std::size_t layer,
                                              std::size_t head,
                                              const std::string& prefix = "attention_");

}  // namespace tfm
