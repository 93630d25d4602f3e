/// \file stopwatch.hpp
/// \brief Engine (not a lesson): the clock every timing of the library reads, and seconds since a
/// start.
#pragma once

#include <chrono>

namespace tfm {

/// The clock of every timing.
using Clock = std::chrono::steady_clock;

/// Wall-clock seconds since `start`.
inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace tfm
