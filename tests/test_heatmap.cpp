#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tfm/heatmap.hpp"

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
  CHECK(count(cells, "<rect") == 12);
  // Lowest value -> the scale's first colour, highest -> its last, at their places.
  CHECK(cells.find("<rect x=\"0\" y=\"0\" width=\"1\" height=\"1\" fill=\"" +
                   heatmap_colour(0.0, ColourScale::kViridis) + "\"") != std::string::npos);
  CHECK(cells.find("<rect x=\"3\" y=\"2\" width=\"1\" height=\"1\" fill=\"" +
                   heatmap_colour(1.0, ColourScale::kViridis) + "\"") != std::string::npos);
  // Text is escaped; every label appears.
  CHECK(svg.find("weights &amp; &lt;tokens&gt;") != std::string::npos);
  CHECK(svg.find("&lt;bos&gt;") != std::string::npos);
  CHECK(svg.find("<bos>") == std::string::npos);
  for (const char* label : {">w<", ">x<", ">y<", ">z<", ">key<", ">query<"}) CHECK(svg.find(label) != std::string::npos);
  CHECK(svg.find("url(#colour-scale)") != std::string::npos);
  // Tags are balanced (a cheap well-formedness check).
  CHECK(count(svg, "<text") == count(svg, "</text>"));
  CHECK(count(svg, "<g ") == count(svg, "</g>"));
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
  CHECK(cells.find("x=\"1\" y=\"0\" width=\"1\" height=\"1\" fill=\"#f7f7f7\"") != std::string::npos);
  CHECK(cells.find("x=\"2\" y=\"0\" width=\"1\" height=\"1\" fill=\"#b2182b\"") != std::string::npos);
}

TEST_CASE("heatmap: a large map (the positional-encoding table) has every cell", "[heatmap]") {
  Tensor2 values = xt::zeros<float>({100, 64});
  const std::string path = temp_path("tfm_test_heatmap_large.svg");
  write_heatmap_svg(path, values);
  const std::string svg = read_file(path);
  std::remove(path.c_str());
  CHECK(count(cells_group(svg), "<rect") == 6400);
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
