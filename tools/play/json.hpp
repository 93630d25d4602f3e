// JSON text for the playground's answers: strings escaped as RFC 8259 asks, numbers that are
// always valid JSON.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace play {

// `text` as a JSON string, quotes included. Control characters become \u00XX; bytes of UTF-8
// pass through unchanged (the page is UTF-8).
inline std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

// A number with 4 significant digits; NaN and infinities (not JSON) become null.
inline std::string json_number(double value) {
  if (!std::isfinite(value)) return "null";
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

// ["a","b"].
inline std::string json_strings(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + json_string(items[i]);
  return out + "]";
}

}  // namespace play
