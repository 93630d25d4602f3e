#include "tfm/support/format.hpp"

#include <cstdarg>
#include <cstdio>

namespace tfm {

std::string format(const char* pattern, ...) {
  va_list args, copy;
  va_start(args, pattern);
  va_copy(copy, args);
  std::string text(static_cast<std::size_t>(std::vsnprintf(nullptr, 0, pattern, copy)), '\0');
  va_end(copy);
  std::vsnprintf(text.data(), text.size() + 1, pattern, args);
  va_end(args);
  return text;
}

}  // namespace tfm
