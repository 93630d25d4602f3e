// The SVG helpers the heat maps and the loss curves share: escaping, number formats and elements.

#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>

#include "tfm/pictures/svg.hpp"

using namespace tfm;

TEST_CASE("svg::escape escapes exactly & < > and double quotes", "[svg]") {
  CHECK(svg::escape("a < b && c > \"d\"") == "a &lt; b &amp;&amp; c &gt; &quot;d&quot;");
  CHECK(svg::escape("it's plain") == "it's plain");  // attributes use double quotes
  CHECK(svg::escape("") == "");
  CHECK(svg::escape("&amp;") == "&amp;amp;");  // text, not markup: escaped again
}

TEST_CASE("svg numbers: coordinates with one decimal, labels with three digits", "[svg]") {
  CHECK(svg::px(12.5) == "12.5");
  CHECK(svg::px(12.46) == "12.5");
  CHECK(svg::px(-3.0) == "-3.0");
  CHECK(svg::short_number(0.0123456) == "0.0123");
  CHECK(svg::short_number(1500.0) == "1.5e+03");
  CHECK(svg::short_number(400.0) == "400");
  CHECK(svg::short_number(1.0) == "1");
}

TEST_CASE("svg::text and svg::open build the elements", "[svg]") {
  CHECK(svg::text(10, 20.25, "a<b") == "<text x=\"10.0\" y=\"20.2\">a&lt;b</text>\n");
  CHECK(svg::text(1, 2, "x", "text-anchor=\"end\"") ==
        "<text x=\"1.0\" y=\"2.0\" text-anchor=\"end\">x</text>\n");
  const std::string head = svg::open(300, 200);
  CHECK(head.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 0) == 0);
  CHECK(head.find("width=\"300.0\" height=\"200.0\" viewBox=\"0 0 300.0 200.0\"") !=
        std::string::npos);
  CHECK(head.find("fill=\"white\"") != std::string::npos);
}
