#include "tfm/pictures/svg.hpp"

#include <cstdio>
#include <stdexcept>

namespace tfm::svg {

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string px(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", value);
  return buf;
}

std::string short_number(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", value);
  return buf;
}

std::string text(double x, double y, const std::string& content, const std::string& attributes) {
  return "<text x=\"" + px(x) + "\" y=\"" + px(y) + "\"" +
         (attributes.empty() ? "" : " " + attributes) + ">" + escape(content) + "</text>\n";
}

std::string open(double width, double height) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
         "width=\"" +
         px(width) + "\" height=\"" + px(height) + "\" viewBox=\"0 0 " + px(width) + " " +
         px(height) +
         "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" "
         "fill=\"white\"/>\n";
}

}  // namespace tfm::svg
