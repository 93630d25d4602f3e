/// \file
/// \brief Chapter 01: reading a number typed by a person (a command-line option, a config value).
///
/// All of the text must be the number, so that "12abc", "" or "1.5" for a count are refused
/// rather than read as 12, 0 or 1 the way std::stoll alone would.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tfm {

/// `text` read as a whole number (T = long long) or a number (T = float or double), with
/// std::stoll / std::stof / std::stod; nothing if `text` is empty, is not a number, is out of T's
/// range or has anything after the number. The caller writes the error message, in its own terms.
template <class T>
std::optional<T> parse_number(const std::string& text) {
  static_assert(
      std::is_same_v<T, long long> || std::is_same_v<T, float> || std::is_same_v<T, double>,
      "parse_number reads long long, float or double");
  std::size_t used = 0;
  T value{};
  try {
    if constexpr (std::is_same_v<T, long long>)
      value = std::stoll(text, &used);
    else if constexpr (std::is_same_v<T, float>)
      value = std::stof(text, &used);
    else
      value = std::stod(text, &used);
  } catch (const std::exception&) {  // std::invalid_argument, std::out_of_range
    return std::nullopt;
  }
  if (text.empty() || used != text.size()) return std::nullopt;
  return value;
}

}  // namespace tfm
