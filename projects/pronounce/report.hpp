/// \file report.hpp
/// \brief The pronunciation project's results as the program prints them.
#pragma once

#include <string>

#include "pronounce/scoring.hpp"

namespace pronounce {

/// The results as the program prints them: the error rates of every decoding with its time, of
/// Festival's rules and of published systems (marked as measured elsewhere), and examples.
std::string results_text(const PronunciationScores& results);

}  // namespace pronounce
