/// \file
/// \brief Support (not a lesson): reading a number typed by a person (a command-line option, a config value).
///
/// All of the text must be the number, so that "12abc", "" or "1.5" for a count are refused
/// rather than read as 12, 0 or 1 the way std::stoll alone would.
#pragma once

#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tfm {

/// `text` read as a whole number (T = long long) or a number (T = float or double), with
/// std::stoll / std::strtof / std::strtod; nothing if `text` is empty, is not a number, is out of
/// T's range (a whole number, or a number too large: a number too small rounds towards 0) or has
/// anything after the number. The caller writes the error message, in its own terms.
template <class T>
std::optional<T> parse_number(const std::string& text) {
  static_assert(
      std::is_same_v<T, long long> || std::is_same_v<T, float> || std::is_same_v<T, double>,
      "parse_number reads long long, float or double");
  std::size_t used = 0;
  T value{};
  if constexpr (std::is_same_v<T, long long>) {
    try {
      value = std::stoll(text, &used);
    } catch (const std::exception&) {  // std::invalid_argument, std::out_of_range
      return std::nullopt;
    }
  } else {
    // strtof / strtod, not stof / stod: a number too small for T (1e-45 for a float, 1e-400)
    // is a number, rounded towards 0 as Python and NumPy read it, not "not a number".
    const char* begin = text.c_str();
    char* end = nullptr;
    errno = 0;
    if constexpr (std::is_same_v<T, float>)
      value = std::strtof(begin, &end);
    else
      value = std::strtod(begin, &end);
    used = static_cast<std::size_t>(end - begin);
    if (used == 0 || (errno == ERANGE && std::isinf(value))) return std::nullopt;  // too large
  }
  if (text.empty() || used != text.size()) return std::nullopt;
  return value;
}

}  // namespace tfm
