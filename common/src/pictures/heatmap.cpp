#include "tfm/pictures/heatmap.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>

#include "tfm/pictures/svg.hpp"
#include "tfm/support/text_file.hpp"

namespace tfm {
namespace {

// Colour scales as evenly spaced anchor colours, interpolated linearly in RGB:
// R's viridis(9), and ColorBrewer's 7-class RdBu reversed (blue = negative, red = positive).
const std::vector<unsigned>& anchors(ColourScale scale) {
  static const std::vector<unsigned> viridis = {0x440154, 0x472D7B, 0x3B528B, 0x2C728E, 0x21908C,
                                                0x27AD81, 0x5DC863, 0xAADC32, 0xFDE725};
  static const std::vector<unsigned> diverging = {0x2166AC, 0x67A9CF, 0xD1E5F0, 0xF7F7F7,
                                                  0xFDDBC7, 0xEF8A62, 0xB2182B};
  return scale == ColourScale::kViridis ? viridis : diverging;
}

// Every `step`-th row or column gets a tick: the smallest of 1, 2, 5, 10, 20, 50, ... that keeps
// tick labels at least `min_spacing` pixels apart.
std::size_t tick_step(double cell_size, double min_spacing) {
  for (std::size_t base = 1;; base *= 10)
    for (std::size_t m : {1, 2, 5})
      if (static_cast<double>(base * m) * cell_size >= min_spacing) return base * m;
}

std::size_t longest(const std::vector<std::string>& labels) {
  std::size_t n = 0;
  for (const std::string& label : labels) n = std::max(n, label.size());
  return n;
}

// fills [rows * cols], row-major -> one <path> per colour, drawing every cell exactly once.
//
// Neighbouring cells of identical colour are merged into rectangles: starting from the first
// cell not drawn yet (row by row), a rectangle grows right while the colour stays the same,
// then down while the whole span below has that colour too. A rectangle is the subpath
// "M x y h w v h h -w z" (in cell units); every rectangle of one colour goes into that colour's
// path. The picture is the same as with one <rect> per cell, at a fraction of the size.
// Growing in both directions matters: in the positional-encoding table sine and cosine columns
// alternate, so a row has almost no runs, but a slow column keeps its colour for many rows.
void write_merged_cells(std::ostream& doc, const std::vector<std::string>& fills, std::size_t rows,
                        std::size_t cols) {
  std::vector<bool> drawn(rows * cols, false);
  // Can cell (r, c) join a rectangle of colour `fill`?
  const auto free_with = [&](std::size_t r, std::size_t c, const std::string& fill) {
    return !drawn[r * cols + c] && fills[r * cols + c] == fill;
  };
  // Colour -> its path data; sorted by colour, so that the same input gives the same file.
  std::map<std::string, std::string> paths;
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) {
      if (drawn[r * cols + c]) continue;
      const std::string& fill = fills[r * cols + c];
      std::size_t width = 1, height = 1;
      while (c + width < cols && free_with(r, c + width, fill)) ++width;
      const auto row_below_matches = [&] {
        for (std::size_t k = c; k < c + width; ++k)
          if (!free_with(r + height, k, fill)) return false;
        return true;
      };
      while (r + height < rows && row_below_matches()) ++height;
      for (std::size_t i = r; i < r + height; ++i)
        for (std::size_t k = c; k < c + width; ++k) drawn[i * cols + k] = true;
      paths[fill] += "M" + std::to_string(c) + ' ' + std::to_string(r) + 'h' +
                     std::to_string(width) + 'v' + std::to_string(height) + "h-" +
                     std::to_string(width) + 'z';
    }
  }
  for (const auto& [fill, data] : paths)
    doc << "<path fill=\"" << fill << "\" d=\"" << data << "\"/>\n";
}

}  // namespace

std::string heatmap_colour(double t, ColourScale scale) {
  const std::vector<unsigned>& stops = anchors(scale);
  t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0);
  const double x = t * static_cast<double>(stops.size() - 1);
  const std::size_t i = std::min(static_cast<std::size_t>(x), stops.size() - 2);
  const double f = x - static_cast<double>(i);
  char buf[8];
  int channel[3];
  for (int k = 0; k < 3; ++k) {
    const int shift = 16 - 8 * k;
    const double a = (stops[i] >> shift) & 0xFF, b = (stops[i + 1] >> shift) & 0xFF;
    channel[k] = static_cast<int>(std::lround(a + f * (b - a)));
  }
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", channel[0], channel[1], channel[2]);
  return buf;
}

namespace {

// The value range that the colour scale spans, over every matrix drawn.
std::pair<double, double> colour_range(const std::vector<const Tensor2*>& maps,
                                       const HeatmapOptions& options) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, largest = 0.0;
  for (const Tensor2* values : maps)
    for (float v : *values) {
      if (!std::isfinite(v)) continue;
      lo = std::min(lo, double(v));
      hi = std::max(hi, double(v));
      largest = std::max(largest, std::abs(double(v)));
    }
  if (lo > hi) lo = hi = 0.0;  // no finite value at all
  if (options.colour_scale == ColourScale::kDiverging) lo = -largest, hi = largest;
  if (options.min_value) lo = *options.min_value;
  if (options.max_value) hi = *options.max_value;
  return {lo, hi};
}

// Text is 12 px (svg::open's font size), about 6.5 px a character.
constexpr double kCharWidth = 6.5;

// Where one map goes: its top-left corner and its cells' size, in pixels.
struct MapBox {
  double left, top, cell_w, cell_h;
};

// Height of the column labels under a map: rotated tokens, or numbers.
double column_ticks_height(const HeatmapOptions& options) {
  return options.column_labels.empty() ? 18.0
                                       : kCharWidth * double(longest(options.column_labels)) + 12.0;
}

// Width of the row labels left of a map.
double row_labels_width(std::size_t rows, const HeatmapOptions& options) {
  const std::size_t chars =
      options.row_labels.empty() ? std::to_string(rows - 1).size() : longest(options.row_labels);
  return kCharWidth * double(chars) + 8.0;
}

// One map: its cells in the group `id`, a frame, row labels on the left, column labels under it.
void write_map(std::ostream& doc, const std::string& id, const Tensor2& values, double lo,
               double hi, const HeatmapOptions& options, const MapBox& box) {
  const std::size_t rows = values.shape(0), cols = values.shape(1);
  std::vector<std::string> fills(rows * cols);  // the colour of every cell, row-major
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) {
      const float v = values(r, c);
      fills[r * cols + c] = !std::isfinite(v) ? "#999999"
                            : hi > lo ? heatmap_colour((v - lo) / (hi - lo), options.colour_scale)
                                      : heatmap_colour(0.5, options.colour_scale);
    }

  // The cells, in cell units: cell (r, c) is the unit square at (c, r), scaled to pixels.
  doc << "<g id=\"" << id << "\" transform=\"translate(" << svg::px(box.left) << ','
      << svg::px(box.top) << ") scale(" << box.cell_w << ',' << box.cell_h
      << ")\" shape-rendering=\"crispEdges\">\n";
  if (rows * cols <= 4096) {
    // Small maps (attention weights): one <rect> per cell, with a tooltip giving its value.
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t c = 0; c < cols; ++c)
        doc << "<rect x=\"" << c << "\" y=\"" << r << "\" width=\"1\" height=\"1\" fill=\""
            << fills[r * cols + c] << "\"><title>"
            << (options.row_labels.empty() ? std::to_string(r) : svg::escape(options.row_labels[r]))
            << ", "
            << (options.column_labels.empty() ? std::to_string(c)
                                              : svg::escape(options.column_labels[c]))
            << ": " << svg::short_number(values(r, c)) << "</title></rect>";
      doc << '\n';
    }
  } else {
    // Large maps (the positional-encoding table, 100 x 512): no tooltips, and cells of one
    // colour merged, 0.5 MB instead of the 3 MB of one <rect> per cell.
    write_merged_cells(doc, fills, rows, cols);
  }
  const double plot_w = box.cell_w * double(cols), plot_h = box.cell_h * double(rows);
  doc << "</g>\n<rect x=\"" << svg::px(box.left) << "\" y=\"" << svg::px(box.top) << "\" width=\""
      << svg::px(plot_w) << "\" height=\"" << svg::px(plot_h)
      << "\" fill=\"none\" stroke=\"#444\" stroke-width=\"0.5\"/>\n";

  // Row labels (or row numbers) on the left, column labels (or numbers) underneath.
  const std::size_t row_step = tick_step(box.cell_h, options.row_labels.empty() ? 16.0 : 12.0);
  for (std::size_t r = 0; r < rows; r += row_step) {
    const std::string text =
        options.row_labels.empty() ? std::to_string(r) : svg::escape(options.row_labels[r]);
    doc << "<text x=\"" << svg::px(box.left - 4) << "\" y=\""
        << svg::px(box.top + (double(r) + 0.5) * box.cell_h)
        << "\" dy=\"0.35em\" text-anchor=\"end\">" << text << "</text>\n";
  }
  const double ticks_y = box.top + plot_h + 4.0;
  if (options.column_labels.empty()) {
    for (std::size_t c = 0; c < cols; c += tick_step(box.cell_w, 36.0))
      doc << "<text x=\"" << svg::px(box.left + (double(c) + 0.5) * box.cell_w) << "\" y=\""
          << svg::px(ticks_y + 10.0) << "\" text-anchor=\"middle\">" << c << "</text>\n";
  } else {
    // Tokens can be long: written slanted, ending under their column. Slanted lines of text
    // are cell_w * sin(60 degrees) apart; when that is less than a 12-px line plus a gap, they
    // would overlap, so they are written upright (cell_w apart).
    const int angle = box.cell_w * std::sqrt(3.0) / 2.0 >= 14.0 ? -60 : -90;
    for (std::size_t c = 0; c < cols; c += tick_step(box.cell_w, 12.0))
      doc << "<text transform=\"translate(" << svg::px(box.left + (double(c) + 0.5) * box.cell_w)
          << ',' << svg::px(ticks_y) << ") rotate(" << angle
          << ")\" dy=\"0.35em\" text-anchor=\"end\">" << svg::escape(options.column_labels[c])
          << "</text>\n";
  }
}

// The colour bar: the scale as a gradient from lo (bottom) to hi (top), with three values.
void write_colour_bar(std::ostream& doc, double x, double top, double height, double lo, double hi,
                      ColourScale scale) {
  const double bar_w = 14.0;
  doc << "<defs><linearGradient id=\"colour-scale\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">";
  for (int k = 0; k <= 16; ++k)
    doc << "<stop offset=\"" << k / 16.0 << "\" stop-color=\"" << heatmap_colour(k / 16.0, scale)
        << "\"/>";
  doc << "</linearGradient></defs>\n"
      << "<rect x=\"" << svg::px(x) << "\" y=\"" << svg::px(top) << "\" width=\"" << svg::px(bar_w)
      << "\" height=\"" << svg::px(height)
      << "\" fill=\"url(#colour-scale)\" stroke=\"#444\" stroke-width=\"0.5\"/>\n";
  for (int k = 0; k <= 2; ++k) {
    const double value = hi - (hi - lo) * k / 2.0;
    doc << "<text x=\"" << svg::px(x + bar_w + 4.0) << "\" y=\"" << svg::px(top + height * k / 2.0)
        << "\" dy=\"0.35em\">" << svg::short_number(value) << "</text>\n";
  }
}
constexpr double kColourBarWidth = 20.0 + 14.0 + 8.0 + kCharWidth * 8.0;  // gap, bar, values

// The figure's title on top, the x axis's name centred at x_mid on the line y, the y axis's
// name turned upright at the left, centred at y_mid.
void write_figure_labels(std::ostream& doc, const HeatmapOptions& options, double width,
                         double x_mid, double y, double y_mid) {
  if (!options.title.empty())
    doc << "<text x=\"" << svg::px(width / 2)
        << "\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">" << svg::escape(options.title)
        << "</text>\n";
  if (!options.x_label.empty())
    doc << "<text x=\"" << svg::px(x_mid) << "\" y=\"" << svg::px(y) << "\" text-anchor=\"middle\">"
        << svg::escape(options.x_label) << "</text>\n";
  if (!options.y_label.empty())
    doc << "<text transform=\"translate(14," << svg::px(y_mid)
        << ") rotate(-90)\" text-anchor=\"middle\">" << svg::escape(options.y_label) << "</text>\n";
}

void check_labels(const HeatmapOptions& options, std::size_t rows, std::size_t cols,
                  const char* who) {
  const auto check = [&](const std::vector<std::string>& labels, std::size_t n, const char* what) {
    if (!labels.empty() && labels.size() != n)
      throw std::invalid_argument(std::string(who) + ": " + std::to_string(labels.size()) + " " +
                                  what + " labels for " + std::to_string(n) + " " + what + "s");
  };
  check(options.row_labels, rows, "row");
  check(options.column_labels, cols, "column");
}

}  // namespace

std::string heatmap_svg(const Tensor2& values, const HeatmapOptions& options) {
  // values [rows, columns] -> one coloured cell each, row 0 at the top
  const std::size_t rows = values.shape(0), cols = values.shape(1);
  if (rows == 0 || cols == 0)
    throw std::invalid_argument("heatmap_svg: nothing to draw, values have shape " +
                                shape_string(values.shape()));
  check_labels(options, rows, cols, "heatmap_svg");
  const auto [lo, hi] = colour_range({&values}, options);

  // Layout in pixels: the map fits in about 680 x 480, cells at most 36 wide, so that the whole
  // picture is at most ~830 wide and shows its 12-px text at full size in the book's column.
  const double cell_w = std::min(36.0, 680.0 / double(cols));
  const double cell_h = std::min(36.0, 480.0 / double(rows));
  const double plot_w = cell_w * double(cols), plot_h = cell_h * double(rows);
  const double left = (options.y_label.empty() ? 8.0 : 28.0) + row_labels_width(rows, options);
  const double top = options.title.empty() ? 12.0 : 36.0;
  const double ticks_h = column_ticks_height(options);
  const double bar_h = std::max(plot_h, 100.0);
  const double width = left + plot_w + kColourBarWidth;
  const double height =
      top + std::max(plot_h + ticks_h + (options.x_label.empty() ? 6.0 : 26.0), bar_h + 12.0);

  std::ostringstream doc;
  doc << svg::open(width, height);
  write_figure_labels(doc, options, width, left + plot_w / 2, top + plot_h + ticks_h + 16.0,
                      top + plot_h / 2);
  write_map(doc, "cells", values, lo, hi, options, {left, top, cell_w, cell_h});
  write_colour_bar(doc, left + plot_w + 20.0, top, bar_h, lo, hi, options.colour_scale);
  doc << "</svg>\n";
  return doc.str();
}

void write_heatmap_svg(const std::string& path, const Tensor2& values,
                       const HeatmapOptions& options) {
  write_text_file(path, heatmap_svg(values, options));
}

void write_heatmap_panels_svg(const std::string& path, const std::vector<Tensor2>& panels,
                              const std::vector<std::string>& panel_titles,
                              std::size_t panels_per_row, const HeatmapOptions& options) {
  // panels: n matrices [rows, columns] -> a grid of maps, panels_per_row to a row
  if (panels.empty() || panels[0].size() == 0)
    throw std::invalid_argument("write_heatmap_panels_svg: nothing to draw");
  const std::size_t rows = panels[0].shape(0), cols = panels[0].shape(1);
  for (const Tensor2& p : panels)
    if (p.shape(0) != rows || p.shape(1) != cols)
      throw std::invalid_argument("write_heatmap_panels_svg: panels of shapes " +
                                  shape_string(panels[0].shape()) + " and " +
                                  shape_string(p.shape()));
  if (panel_titles.size() != panels.size())
    throw std::invalid_argument("write_heatmap_panels_svg: " + std::to_string(panel_titles.size()) +
                                " titles for " + std::to_string(panels.size()) + " panels");
  if (panels_per_row == 0)
    throw std::invalid_argument("write_heatmap_panels_svg: panels_per_row must be at least 1");
  check_labels(options, rows, cols, "write_heatmap_panels_svg");
  std::vector<const Tensor2*> maps;
  for (const Tensor2& p : panels) maps.push_back(&p);
  const auto [lo, hi] = colour_range(maps, options);

  // Layout: every panel has its title above, its row labels left and its column labels under
  // it; the figure's title on top, the axis names once, one colour bar on the right.
  const std::size_t across = std::min(panels_per_row, panels.size());
  const std::size_t down = (panels.size() + across - 1) / across;
  const double labels_w = row_labels_width(rows, options), gap = 16.0, title_h = 20.0;
  const double cell = std::min(36.0, (700.0 / double(across) - labels_w - gap) / double(cols));
  const double plot_w = cell * double(cols), plot_h = cell * double(rows);
  const double ticks_h = column_ticks_height(options);
  const double panel_w = labels_w + plot_w + gap, panel_h = title_h + plot_h + ticks_h + gap;
  const double left = options.y_label.empty() ? 8.0 : 28.0;
  const double top = options.title.empty() ? 8.0 : 36.0;
  const double grid_w = panel_w * double(across), grid_h = panel_h * double(down);
  const double width = left + grid_w + kColourBarWidth;
  const double height = top + grid_h + (options.x_label.empty() ? 6.0 : 24.0);

  std::ostringstream doc;
  doc << svg::open(width, height);
  write_figure_labels(doc, options, width, left + grid_w / 2, top + grid_h + 14.0,
                      top + grid_h / 2);
  for (std::size_t k = 0; k < panels.size(); ++k) {
    const double x0 = left + panel_w * double(k % across), y0 = top + panel_h * double(k / across);
    const MapBox box{x0 + labels_w, y0 + title_h, cell, cell};
    doc << "<text x=\"" << svg::px(box.left + plot_w / 2) << "\" y=\"" << svg::px(y0 + 14.0)
        << "\" text-anchor=\"middle\" font-weight=\"bold\">" << svg::escape(panel_titles[k])
        << "</text>\n";
    write_map(doc, k == 0 ? "cells" : "cells-" + std::to_string(k), panels[k], lo, hi, options,
              box);
  }
  write_colour_bar(doc, left + grid_w + 4.0, top + title_h,
                   std::max(grid_h - title_h - ticks_h - gap, 100.0), lo, hi, options.colour_scale);
  doc << "</svg>\n";
  write_text_file(path, doc.str());
}

}  // namespace tfm
