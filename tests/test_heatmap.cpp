#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

#include "tfm/layers/positional_encoding.hpp"
#include "tfm/pictures/heatmap.hpp"

using namespace tfm;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The part of the SVG between <g id="cells" ...> and its </g>.
std::string cells_group(const std::string& svg) {
  const std::size_t begin = svg.find("<g id=\"cells\"");
  const std::size_t end = svg.find("</g>", begin);
  REQUIRE(begin != std::string::npos);
  REQUIRE(end != std::string::npos);
  return svg.substr(begin, end - begin);
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / name).string();
}

// What a browser would paint from the merged cells of a large map: reads every
// <path fill="#rrggbb" d="M x y h w v h h -w z ..."/> of the cells group and paints its
// rectangles into a rows x cols grid of colours. Also counts how often each cell is painted
// and how many rectangles and paths there are, to check that nothing overlaps or is missing.
struct Painted {
  std::vector<std::string> colour;  // [rows * cols], "" where nothing was painted
  std::vector<int> times;           // [rows * cols]
  std::size_t rectangles = 0, paths = 0;
};

Painted paint_paths(const std::string& cells, std::size_t rows, std::size_t cols) {
  Painted out{std::vector<std::string>(rows * cols), std::vector<int>(rows * cols, 0)};
  const std::string open = "<path fill=\"";
  for (std::size_t at = cells.find(open); at != std::string::npos; at = cells.find(open, at + 1)) {
    ++out.paths;
    const std::string fill = cells.substr(at + open.size(), 7);
    const std::size_t d = cells.find("d=\"", at) + 3, end = cells.find('"', d);
    for (std::size_t pos = d; pos < end;) {
      std::size_t x = 0, y = 0, w = 0, h = 0, w_back = 0;
      int used = 0;
      const int got = std::sscanf(cells.c_str() + pos, "M%zu %zuh%zuv%zuh-%zuz%n", &x, &y, &w, &h,
                                  &w_back, &used);
      REQUIRE(got == 5);
      REQUIRE(used > 0);
      REQUIRE(w_back == w);  // the rectangle closes on itself
      REQUIRE(x + w <= cols);
      REQUIRE(y + h <= rows);
      for (std::size_t r = y; r < y + h; ++r)
        for (std::size_t c = x; c < x + w; ++c) {
          out.colour[r * cols + c] = fill;
          ++out.times[r * cols + c];
        }
      ++out.rectangles;
      pos += static_cast<std::size_t>(used);
    }
  }
  return out;
}

std::size_t file_size(const std::string& path) {
  return std::filesystem::file_size(path);
}

}  // namespace

TEST_CASE("heatmap: writes an SVG with one cell per value, labels and a colour bar", "[heatmap]") {
  Tensor2 values = Tensor2::from_shape({3, 4});
  for (std::size_t k = 0; k < values.size(); ++k) values.data()[k] = float(k);  // 0 .. 11
  HeatmapOptions options;
  options.title = "weights & <tokens>";
  options.x_label = "key";
  options.y_label = "query";
  options.row_labels = {"<bos>", "a", "b"};
  options.column_labels = {"w", "x", "y", "z"};
  const std::string path = temp_path("tfm_test_heatmap.svg");
  write_heatmap_svg(path, values, options);

  const std::string svg = read_file(path);
  std::remove(path.c_str());
  CHECK(svg.rfind("<?xml", 0) == 0);
  CHECK(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\"") != std::string::npos);
  CHECK(svg.size() > 7);
  CHECK(svg.substr(svg.size() - 7) == "</svg>\n");
  const std::string cells = cells_group(svg);
  // A small map: one rect per cell, each with a tooltip giving the row, the column and the value.
  CHECK(count(cells, "<rect") == 12);
  CHECK(count(cells, "<title>") == 12);
  CHECK(cells.find("<title>b, z: 11</title>") != std::string::npos);
  CHECK(count(cells, "<path") == 0);
  // Lowest value -> the scale's first colour, highest -> its last, at their places.
  CHECK(cells.find("<rect x=\"0\" y=\"0\" width=\"1\" height=\"1\" fill=\"" +
                   heatmap_colour(0.0, ColourScale::kViridis) + "\"") != std::string::npos);
  CHECK(cells.find("<rect x=\"3\" y=\"2\" width=\"1\" height=\"1\" fill=\"" +
                   heatmap_colour(1.0, ColourScale::kViridis) + "\"") != std::string::npos);
  // Text is escaped; every label appears.
  CHECK(svg.find("weights &amp; &lt;tokens&gt;") != std::string::npos);
  CHECK(svg.find("&lt;bos&gt;") != std::string::npos);
  CHECK(svg.find("<bos>") == std::string::npos);
  for (const char* label : {">w<", ">x<", ">y<", ">z<", ">key<", ">query<"})
    CHECK(svg.find(label) != std::string::npos);
  CHECK(svg.find("url(#colour-scale)") != std::string::npos);
  // Tags are balanced (a cheap well-formedness check).
  CHECK(count(svg, "<text") == count(svg, "</text>"));
  CHECK(count(svg, "<g ") == count(svg, "</g>"));
}

TEST_CASE("heatmap: column labels are slanted where they fit, upright where columns are narrow",
          "[heatmap]") {
  // Slanted lines of text are a column's width times sin(60 degrees) apart: narrow columns (the
  // subwords of a verse) would overlap, so they are written upright, a column's width apart.
  const auto labels_of = [](std::size_t cols) {
    Tensor2 values = Tensor2::from_shape({2, cols});
    values.fill(0.5f);
    HeatmapOptions options;
    options.row_labels = {"a", "b"};
    for (std::size_t c = 0; c < cols; ++c) options.column_labels.push_back("w" + std::to_string(c));
    const std::string path = temp_path("tfm_test_heatmap_labels.svg");
    write_heatmap_svg(path, values, options);
    const std::string svg = read_file(path);
    std::remove(path.c_str());
    return svg;
  };
  const std::string wide = labels_of(4), narrow = labels_of(50);
  CHECK(count(wide, "rotate(-60)\" dy=\"0.35em\"") == 4);
  CHECK(count(wide, "rotate(-90)\" dy=\"0.35em\"") == 0);
  CHECK(count(narrow, "rotate(-90)\" dy=\"0.35em\"") == 50);
  CHECK(count(narrow, "rotate(-60)") == 0);
}

TEST_CASE("heatmap: colour scales", "[heatmap]") {
  CHECK(heatmap_colour(0.0, ColourScale::kViridis) == "#440154");
  CHECK(heatmap_colour(1.0, ColourScale::kViridis) == "#fde725");
  CHECK(heatmap_colour(2.0, ColourScale::kViridis) == "#fde725");  // clamped
  CHECK(heatmap_colour(0.0, ColourScale::kDiverging) == "#2166ac");
  CHECK(heatmap_colour(0.5, ColourScale::kDiverging) == "#f7f7f7");  // zero is white
  CHECK(heatmap_colour(1.0, ColourScale::kDiverging) == "#b2182b");

  // The diverging scale is symmetric around 0: 0 is white even when the data are not symmetric.
  Tensor2 values = {{-0.5f, 0.0f, 1.0f}};
  HeatmapOptions options;
  options.colour_scale = ColourScale::kDiverging;
  const std::string path = temp_path("tfm_test_heatmap_diverging.svg");
  write_heatmap_svg(path, values, options);
  const std::string cells = cells_group(read_file(path));
  std::remove(path.c_str());
  CHECK(cells.find("x=\"1\" y=\"0\" width=\"1\" height=\"1\" fill=\"#f7f7f7\"") !=
        std::string::npos);
  CHECK(cells.find("x=\"2\" y=\"0\" width=\"1\" height=\"1\" fill=\"#b2182b\"") !=
        std::string::npos);
}

TEST_CASE("heatmap: a large map merges cells of one colour into rectangles", "[heatmap]") {
  const std::string path = temp_path("tfm_test_heatmap_large.svg");
  SECTION("a constant map is one rectangle") {
    Tensor2 values = xt::zeros<float>({100, 64});
    write_heatmap_svg(path, values);
    const std::string cells = cells_group(read_file(path));
    CHECK(count(cells, "<rect") == 0);
    CHECK(count(cells, "<title>") == 0);  // no tooltips on large maps
    CHECK(cells.find("<path fill=\"" + heatmap_colour(0.5, ColourScale::kViridis) +
                     "\" d=\"M0 0h64v100h-64z\"/>") != std::string::npos);
    CHECK(count(cells, "<path") == 1);
  }
  SECTION("blocks, a stripe, single cells and a non-finite value land where they belong") {
    // 80 x 60: 0 on the left half, 1 on the right; column 45 is 0.5 from row 10 down;
    // one cell (5, 7) is 1 inside the left half, one (70, 50) is NaN.
    Tensor2 values = Tensor2::from_shape({80, 60});
    for (std::size_t r = 0; r < 80; ++r)
      for (std::size_t c = 0; c < 60; ++c) values(r, c) = c < 30 ? 0.0f : 1.0f;
    for (std::size_t r = 10; r < 80; ++r) values(r, 45) = 0.5f;
    values(5, 7) = 1.0f;
    values(70, 50) = std::numeric_limits<float>::quiet_NaN();
    write_heatmap_svg(path, values);
    const Painted painted = paint_paths(cells_group(read_file(path)), 80, 60);
    const std::string low = heatmap_colour(0.0, ColourScale::kViridis),
                      high = heatmap_colour(1.0, ColourScale::kViridis),
                      middle = heatmap_colour(0.5, ColourScale::kViridis);
    for (std::size_t r = 0; r < 80; ++r)
      for (std::size_t c = 0; c < 60; ++c) {
        INFO("cell (" << r << ", " << c << ")");
        REQUIRE(painted.times[r * 60 + c] == 1);
        const std::string expected = (r == 5 && c == 7)     ? high
                                     : (r == 70 && c == 50) ? std::string("#999999")
                                     : (c == 45 && r >= 10) ? middle
                                     : c < 30               ? low
                                                            : high;
        REQUIRE(painted.colour[r * 60 + c] == expected);
      }
    CHECK(painted.paths == 4);  // one per colour
    // Left half: rows 0-4, row 5 left and right of (5, 7), rows 6-79. Right half: rows 0-9,
    // then columns 30-44 and 46-59 around the stripe, split again around the NaN cell.
    CHECK(painted.rectangles < 20);
  }
  std::remove(path.c_str());
}

TEST_CASE("heatmap: the positional-encoding table of chapter 03 is drawn exactly, and small",
          "[heatmap]") {
  // The chapter's map: 100 positions x 512 columns, diverging scale.
  const PositionalEncoding pe(100, 512);
  const Tensor2& table = pe.table();
  HeatmapOptions options;
  options.colour_scale = ColourScale::kDiverging;
  const std::string path = temp_path("tfm_test_heatmap_pe.svg");
  write_heatmap_svg(path, table, options);
  const std::string svg = read_file(path);
  const std::size_t bytes = file_size(path);
  std::remove(path.c_str());

  // Every cell painted once, in the colour of its own value (range -max|v| .. +max|v|).
  double largest = 0.0;
  for (float v : table) largest = std::max(largest, std::abs(double(v)));
  const Painted painted = paint_paths(cells_group(svg), 100, 512);
  std::size_t wrong = 0, not_once = 0;
  for (std::size_t r = 0; r < 100; ++r)
    for (std::size_t c = 0; c < 512; ++c) {
      const std::string expected =
          heatmap_colour((table(r, c) + largest) / (2 * largest), ColourScale::kDiverging);
      if (painted.colour[r * 512 + c] != expected) ++wrong;
      if (painted.times[r * 512 + c] != 1) ++not_once;
    }
  CHECK(wrong == 0);
  CHECK(not_once == 0);
  // The high columns barely change along the positions: far fewer shapes than cells, and a file
  // far below the ~3 MB of one <rect> per cell.
  CHECK(painted.rectangles < 51200 * 2 / 3);
  CHECK(bytes < 700 * 1024);
}

TEST_CASE("heatmap: errors name the path or the mismatch", "[heatmap]") {
  Tensor2 values = xt::zeros<float>({2, 2});
  CHECK_THROWS_AS(write_heatmap_svg("/no/such/directory/map.svg", values), std::runtime_error);
  CHECK_THROWS_WITH(write_heatmap_svg("/no/such/directory/map.svg", values),
                    Catch::Contains("'/no/such/directory/map.svg'"));
  HeatmapOptions options;
  options.row_labels = {"only one"};
  CHECK_THROWS_WITH(write_heatmap_svg(temp_path("tfm_unused.svg"), values, options),
                    Catch::Contains("1 row labels for 2 rows"));
  CHECK_THROWS_AS(write_heatmap_svg(temp_path("tfm_unused.svg"), Tensor2(xt::zeros<float>({0, 3}))),
                  std::invalid_argument);
}

TEST_CASE("heatmap panels: one map per panel, each titled, one colour scale", "[heatmap]") {
  // Three 2 x 3 maps, two to a row: 0..5, 6..11, 12..17; the scale spans all of them.
  std::vector<Tensor2> panels;
  for (int k = 0; k < 3; ++k) {
    Tensor2 values = Tensor2::from_shape({2, 3});
    for (std::size_t i = 0; i < values.size(); ++i) values.data()[i] = float(6 * k + int(i));
    panels.push_back(values);
  }
  HeatmapOptions options;
  options.row_labels = {"a", "b"};
  options.column_labels = {"x", "y", "z"};
  const std::string path = temp_path("tfm_test_heatmap_panels.svg");
  write_heatmap_panels_svg(path, panels, {"head 0", "head 1", "head 2"}, 2, options);
  const std::string svg = read_file(path);
  std::remove(path.c_str());
  CHECK(svg.find("viewBox=\"0 0 ") != std::string::npos);
  for (const char* title : {">head 0<", ">head 1<", ">head 2<"})
    CHECK(svg.find(title) != std::string::npos);
  // One group of cells per panel, with unique ids; every cell once.
  CHECK(count(svg, "<g id=\"cells") == 3);
  CHECK(count(svg, "<rect x=\"0\" y=\"0\" width=\"1\" height=\"1\"") == 3);
  // Panel 0's first cell is the lowest colour, panel 2's last the highest: one shared scale.
  CHECK(cells_group(svg).find("fill=\"" + heatmap_colour(0.0, ColourScale::kViridis) + "\"") !=
        std::string::npos);
  const std::size_t last = svg.find("<g id=\"cells-2\"");
  REQUIRE(last != std::string::npos);
  CHECK(svg.find("<rect x=\"2\" y=\"1\" width=\"1\" height=\"1\" fill=\"" +
                     heatmap_colour(1.0, ColourScale::kViridis) + "\"",
                 last) != std::string::npos);
  // Every panel has the row and column labels.
  CHECK(count(svg, ">a</text>") == 3);
  CHECK(count(svg, ">z</text>") == 3);
  CHECK(count(svg, "<g ") == count(svg, "</g>"));
}

TEST_CASE("heatmap panels: errors name the mismatch", "[heatmap]") {
  const std::string path = temp_path("tfm_unused_panels.svg");
  const Tensor2 a = xt::zeros<float>({2, 2}), b = xt::zeros<float>({2, 3});
  CHECK_THROWS_WITH(write_heatmap_panels_svg(path, {}, {}, 2), Catch::Contains("nothing to draw"));
  CHECK_THROWS_WITH(write_heatmap_panels_svg(path, {a, b}, {"0", "1"}, 2),
                    Catch::Contains("panels of shapes [2, 2] and [2, 3]"));
  CHECK_THROWS_WITH(write_heatmap_panels_svg(path, {a, a}, {"only one"}, 2),
                    Catch::Contains("1 titles for 2 panels"));
  CHECK_THROWS_WITH(write_heatmap_panels_svg(path, {a}, {"0"}, 0),
                    Catch::Contains("panels_per_row must be at least 1"));
  CHECK_THROWS_WITH(write_heatmap_panels_svg("/no/such/directory/map.svg", {a}, {"0"}, 1),
                    Catch::Contains("'/no/such/directory/map.svg'"));
}
