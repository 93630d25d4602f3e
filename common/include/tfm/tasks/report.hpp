/// \file report.hpp
/// \brief Task (chapter 11): the results of testing (tfm::score_vowels, tfm::score_sequences) as
/// the chapter prints them.
#pragma once

#include <string>

#include "tfm/tasks/scoring.hpp"

namespace tfm {

/// The results as the chapter prints them: the scores table (characters and vowels restored, the
/// model's two decodings and every baseline), where the model stands against each baseline, and
/// reference 002's three sentences.
std::string results_text(const VowelScores& results);
/// The results on another text (score_vowels_on), as the chapter prints them after
/// results_text: a heading naming `text_name`, the scores table and where the model stands
/// against each baseline, in the words of results_text.
std::string test_corpus_results_text(const VowelScores& results, const std::string& text_name);
/// The results of copy or translate as the chapter prints them: a few examples, then the count
/// of sequences decoded exactly.
std::string results_text(const SequenceScores& results);

}  // namespace tfm
