/// \file svg.hpp
/// \brief Pictures (chapter 03): the little SVG the book's pictures need: escaping, coordinates, writing the file.
///
/// Heat maps (heatmap.hpp) and loss curves (line_chart.hpp) are written as plain SVG text,
/// with no plotting library: a reader can open the file and see every element.
#pragma once

#include <string>

namespace tfm::svg {

/// `text` with `& < > "` escaped for XML content and attributes.
std::string escape(const std::string& text);
/// A coordinate with one decimal, e.g. `12.5`.
std::string px(double value);
/// A value with three significant digits, e.g. `0.0123`, `1.5e+03`.
std::string short_number(double value);
/// `<text x=.. y=.. ...>escaped</text>` with the given extra attributes (e.g. `text-anchor="end"`).
std::string text(double x, double y, const std::string& content,
                 const std::string& attributes = "");
/// The opening `<svg>` tag of a `width` x `height` picture, with a white background.
std::string open(double width, double height);

}  // namespace tfm::svg
