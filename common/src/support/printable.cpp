#include "tfm/support/printable.hpp"

namespace tfm {

std::string printable(const std::string& text, std::size_t max_chars) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (const char c : text.substr(0, max_chars)) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7F)
      out += std::string("\\x") + hex[u >> 4] + hex[u & 0xF];
    else
      out += c;
  }
  return text.size() > max_chars ? out + "..." : out;
}

}  // namespace tfm
