/// \file format.hpp
/// \brief Support (not a lesson): printf into a std::string, for the results tables the programs print.
#pragma once

#include <string>

namespace tfm {

/// `pattern` with its `%` conversions filled in from the arguments, as std::printf would print it.
std::string format(const char* pattern, ...) __attribute__((format(printf, 1, 2)));

}  // namespace tfm
