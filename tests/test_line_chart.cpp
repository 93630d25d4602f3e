// The loss-curve chart (chapter 11): a well-formed SVG with one polyline per series inside the
// plot area, a legend, ticks on linear and logarithmic axes, and clear errors for data it
// cannot draw or a file it cannot write.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tfm/pictures/line_chart.hpp"

using namespace tfm;

namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("tfm_test_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

// Writes the chart, reads it back and removes the file.
std::string chart_text(const std::vector<ChartSeries>& series, const ChartOptions& options) {
  const std::string path = temp_path("line_chart.svg");
  write_line_chart_svg(path, series, options);
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  std::filesystem::remove(path);
  return text.str();
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// "" if every element is closed in order (XML well-formedness, enough for SVG viewers), else
// what is wrong. Assumes, as the writer guarantees, that '<' and '>' only delimit tags.
std::string tag_problem(const std::string& xml) {
  std::vector<std::string> open;
  for (std::size_t at = xml.find('<'); at != std::string::npos; at = xml.find('<', at + 1)) {
    const std::size_t end = xml.find('>', at);
    if (end == std::string::npos) return "unterminated tag at " + std::to_string(at);
    const std::string tag = xml.substr(at + 1, end - at - 1);
    if (tag.empty()) return "empty tag at " + std::to_string(at);
    if (tag[0] == '?') continue;  // the XML declaration
    if (tag[0] == '/') {
      if (open.empty() || open.back() != tag.substr(1))
        return "unexpected </" + tag.substr(1) + ">";
      open.pop_back();
      continue;
    }
    if (tag.back() == '/') continue;  // <line .../>
    open.push_back(tag.substr(0, tag.find_first_of(" \n")));
  }
  return open.empty() ? "" : "<" + open.back() + "> never closed";
}

// The points of every polyline, in order.
std::vector<std::vector<std::pair<double, double>>> polylines(const std::string& svg) {
  std::vector<std::vector<std::pair<double, double>>> out;
  const std::string key = "<polyline";
  for (std::size_t at = svg.find(key); at != std::string::npos; at = svg.find(key, at + 1)) {
    const std::size_t begin = svg.find("points=\"", at) + 8, end = svg.find('"', begin);
    std::istringstream points(svg.substr(begin, end - begin));
    out.emplace_back();
    double x = 0, y = 0;
    char comma = 0;
    while (points >> x >> comma >> y) out.back().emplace_back(x, y);
  }
  return out;
}

// The text of every y-axis tick label (the only right-aligned texts).
std::vector<std::string> y_tick_labels(const std::string& svg) {
  std::vector<std::string> out;
  const std::string key = "text-anchor=\"end\">";
  for (std::size_t at = svg.find(key); at != std::string::npos; at = svg.find(key, at + 1)) {
    const std::size_t begin = at + key.size();
    out.push_back(svg.substr(begin, svg.find('<', begin) - begin));
  }
  return out;
}

bool contains(const std::vector<std::string>& labels, const std::string& label) {
  for (const std::string& l : labels)
    if (l == label) return true;
  return false;
}

ChartSeries series(const std::string& name, std::vector<double> x, std::vector<double> y) {
  return {name, std::move(x), std::move(y), "#1f77b4"};
}

}  // namespace

TEST_CASE("line chart: one polyline per series inside the plot, a legend and titles",
          "[line_chart]") {
  const ChartSeries train = series("train", {1, 2, 3, 4, 5}, {3.2, 2.5, 1.9, 1.6, 1.4});
  ChartSeries held_out = series("held-out <every 2>", {2, 4, 5}, {2.7, 1.9, 1.7});
  held_out.colour = "#d62728";
  const std::string svg = chart_text({train, held_out}, {"Loss & co", "step", "loss", false});

  CHECK(svg.rfind("<?xml", 0) == 0);
  CHECK(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\"") != std::string::npos);
  CHECK(tag_problem(svg).empty());
  CHECK(svg.find("nan") == std::string::npos);
  CHECK(svg.find("inf") == std::string::npos);

  const auto lines = polylines(svg);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].size() == 5);
  CHECK(lines[1].size() == 3);
  // The plot area is the rectangle x 70..570, y 40..370 of the 720 x 420 picture.
  for (const auto& line : lines)
    for (const auto& [x, y] : line) {
      CHECK(x >= 70.0);
      CHECK(x <= 570.0);
      CHECK(y >= 40.0);
      CHECK(y <= 370.0);
    }
  // x = 1 and x = 5 span the whole width; a falling loss goes down the picture (y grows).
  CHECK(lines[0].front().first == Approx(70.0));
  CHECK(lines[0].back().first == Approx(570.0));
  CHECK(lines[0].front().second < lines[0].back().second);

  // Legend and labels, escaped; each series drawn in its colour.
  CHECK(svg.find(">train</text>") != std::string::npos);
  CHECK(svg.find(">held-out &lt;every 2&gt;</text>") != std::string::npos);
  CHECK(svg.find(">Loss &amp; co</text>") != std::string::npos);
  CHECK(svg.find(">step</text>") != std::string::npos);
  CHECK(svg.find(">loss</text>") != std::string::npos);
  CHECK(count(svg, "stroke=\"#d62728\"") == 2);  // its polyline and its legend line
  CHECK(y_tick_labels(svg).size() >= 3);
}

TEST_CASE("line chart: the picture widens so that a long legend name fits", "[line_chart]") {
  const auto picture_width = [](const std::string& svg) {
    const std::size_t at = svg.find("width=\"") + 7;
    return std::stod(svg.substr(at, svg.find('"', at) - at));
  };
  const std::string name = "recipe-tm-sandybridge-1t, 2 threads";
  const std::string short_svg = chart_text({series("train", {1, 2}, {2.0, 1.0})}, {});
  const std::string long_svg = chart_text({series(name, {1, 2}, {2.0, 1.0})}, {});
  CHECK(picture_width(short_svg) == Approx(720.0));
  // The name starts 42 px right of the plot (x 612) and needs about 7 px a character.
  CHECK(picture_width(long_svg) >= 612.0 + 7.0 * static_cast<double>(name.size()));
  // The plot itself keeps its place and size.
  CHECK(polylines(long_svg) == polylines(short_svg));
}

TEST_CASE("line chart: a log axis puts ticks at 1, 2 and 5 times powers of ten", "[line_chart]") {
  const std::string svg =
      chart_text({series("loss", {0, 10, 20, 30}, {10, 1, 0.1, 0.01})}, {"", "step", "loss", true});
  CHECK(tag_problem(svg).empty());
  const std::vector<std::string> labels = y_tick_labels(svg);
  for (const char* label : {"0.01", "0.02", "0.05", "0.1", "1", "5", "10"}) {
    INFO(label);
    CHECK(contains(labels, label));
  }
  // Equal ratios are equal distances: the four points are evenly spaced vertically.
  const auto line = polylines(svg).at(0);
  REQUIRE(line.size() == 4);
  CHECK(line[1].second - line[0].second == Approx(line[3].second - line[2].second).margin(0.2));

  // A loss that moves inside one decade (here 1.5 .. 1.8) still gets labelled ticks.
  const std::string narrow =
      chart_text({series("loss", {1, 2, 3}, {1.8, 1.6, 1.5})}, {"", "step", "loss", true});
  INFO(narrow);
  CHECK(y_tick_labels(narrow).size() >= 2);
}

TEST_CASE("line chart: a single point or a flat line is still drawn", "[line_chart]") {
  const std::string svg = chart_text({series("one", {5}, {2.0})}, {});
  CHECK(tag_problem(svg).empty());
  REQUIRE(polylines(svg).size() == 1);
  CHECK(polylines(svg)[0].size() == 1);
  const std::string flat = chart_text({series("flat", {1, 2, 3}, {1, 1, 1})}, {"", "", "", true});
  CHECK(polylines(flat)[0].size() == 3);
  // An empty series beside a full one (a run without held-out data) is an empty polyline.
  const std::string with_empty =
      chart_text({series("train", {1, 2}, {2, 1}), series("held-out", {}, {})}, {});
  CHECK(polylines(with_empty).size() == 2);
  CHECK(polylines(with_empty)[1].empty());
  CHECK(with_empty.find(">held-out</text>") != std::string::npos);
}

TEST_CASE("line chart: data it cannot draw is an error naming the series", "[line_chart]") {
  const std::string path = temp_path("never_written.svg");
  // y <= 0 on a log axis.
  CHECK_THROWS_AS(
      write_line_chart_svg(path, {series("loss", {1, 2}, {1.0, 0.0})}, {"", "", "", true}),
      std::invalid_argument);
  CHECK_THROWS_WITH(
      write_line_chart_svg(path, {series("loss", {1, 2}, {1.0, -2.0})}, {"", "", "", true}),
      Catch::Contains("'loss'") && Catch::Contains("log"));
  // ... is fine on a linear one.
  CHECK_NOTHROW(chart_text({series("loss", {1, 2}, {1.0, -2.0})}, {}));
  // x and y of different lengths.
  CHECK_THROWS_WITH(
      write_line_chart_svg(path, {series("train", {1, 2, 3}, {1.0, 2.0})}),
      Catch::Contains("'train'") && Catch::Contains("3 x values") && Catch::Contains("2 y values"));
  // Nothing to draw.
  CHECK_THROWS_AS(write_line_chart_svg(path, {}), std::invalid_argument);
  CHECK_THROWS_AS(write_line_chart_svg(path, {series("empty", {}, {})}), std::invalid_argument);
  // NaN or infinity would make the points attribute unreadable ("nan,nan").
  const double nan = std::numeric_limits<double>::quiet_NaN(),
               inf = std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH(write_line_chart_svg(path, {series("train", {1, 2}, {1.0, nan})}),
                    Catch::Contains("'train'") && Catch::Contains("finite"));
  CHECK_THROWS_AS(write_line_chart_svg(path, {series("train", {1, 2}, {1.0, inf})}),
                  std::invalid_argument);
  CHECK_THROWS_AS(write_line_chart_svg(path, {series("train", {1, nan}, {1.0, 2.0})}),
                  std::invalid_argument);
  CHECK_FALSE(std::filesystem::exists(path));
}

TEST_CASE("line chart: a path that cannot be written is an error naming it", "[line_chart]") {
  const std::string path = "/nonexistent-directory/loss_curve.svg";
  CHECK_THROWS_AS(write_line_chart_svg(path, {series("loss", {1, 2}, {2.0, 1.0})}),
                  std::runtime_error);
  CHECK_THROWS_WITH(write_line_chart_svg(path, {series("loss", {1, 2}, {2.0, 1.0})}),
                    Catch::Contains(path));
}
