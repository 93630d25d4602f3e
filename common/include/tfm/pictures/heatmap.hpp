/// \file heatmap.hpp
/// \brief Pictures (chapter 03): a self-contained SVG heat map of a matrix (positional encodings, attention
/// weights), or of several side by side (the heads of chapter 06), written without any plotting
/// library.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tfm/core/tensor.hpp"

namespace tfm {

/// How values are mapped to colours.
enum class ColourScale {
  kViridis,    ///< Sequential, dark purple (low) -> yellow (high); e.g. attention weights.
  kDiverging,  ///< Blue (negative) -> white (0) -> red (positive), range symmetric around 0;
               ///< e.g. the positional encoding.
};

/// What the heat map shows besides the cells. Everything is optional.
struct HeatmapOptions {
  std::string title;    ///< Above the map.
  std::string x_label;  ///< Under the map, names the columns' axis.
  std::string y_label;  ///< Left of the map, names the rows' axis.
  std::vector<std::string>
      row_labels;  ///< Empty (rows are numbered), or one per row, e.g. query tokens.
  std::vector<std::string>
      column_labels;  ///< Empty (columns are numbered), or one per column, e.g. key tokens.
  ColourScale colour_scale = ColourScale::kViridis;  ///< kDiverging for data whose sign matters.
  std::optional<float>
      min_value;  ///< Value drawn with the lowest colour (default: the data's minimum,
                  ///< or -max|v| for the diverging scale).
  std::optional<float>
      max_value;  ///< Value drawn with the highest colour (default: the data's maximum,
                  ///< or +max|v| for the diverging scale).
};

/// Writes `values` `[rows, columns]` as an SVG heat map with a colour bar: row r is drawn
/// r-th from the top, column c c-th from the left. Non-finite values are drawn grey.
/// A map of at most 4096 cells gives every cell a tooltip with its value. A larger one merges
/// neighbouring cells of identical colour into one shape, which looks the same and keeps the
/// file small: chapter 03's table, 100 x 512 cells, takes about 0.5 MB instead of 3 MB.
/// Throws std::invalid_argument for an empty matrix or label lists of the wrong length, and
/// std::runtime_error naming `path` if the file cannot be written.
void write_heatmap_svg(const std::string& path, const Tensor2& values,
                       const HeatmapOptions& options = {});
/// The same SVG document as a string (e.g. for a web page); the same errors, without the file's.
std::string heatmap_svg(const Tensor2& values, const HeatmapOptions& options = {});

/// Writes several matrices of one shape as small multiples (e.g. the heads of one attention):
/// `panels_per_row` maps to a row, each with its title above it ("head 3") and the row and
/// column labels of `options`; one colour scale, one colour bar, the title and axis names once.
/// Throws std::invalid_argument for no panels, panels of different shapes, a title count that
/// differs from the panel count or labels of the wrong length, and std::runtime_error naming
/// `path` if the file cannot be written.
void write_heatmap_panels_svg(const std::string& path, const std::vector<Tensor2>& panels,
                              const std::vector<std::string>& panel_titles,
                              std::size_t panels_per_row, const HeatmapOptions& options = {});

/// The colour of position t in [0, 1] along `scale` (clamped), as `#rrggbb`.
std::string heatmap_colour(double t, ColourScale scale);

}  // namespace tfm
