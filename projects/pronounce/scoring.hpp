/// \file scoring.hpp
/// \brief The pronunciation project's test: every test word decoded greedily and with beam
/// search, scored (word and phoneme error rates) and timed, beside Festival's letter-to-sound
/// rules on the same words.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "pronounce/letter_to_sound.hpp"
#include "pronounce/metrics.hpp"
#include "pronounce/task.hpp"

namespace pronounce {

/// One way of decoding the pronounce task's test words, scored, and the time it took.
struct PronunciationDecoding {
  std::string name;          ///< e.g. "greedy" or "beam K = 3"
  std::size_t beam = 1;      ///< 1 for greedy decoding
  PronunciationScore score;  ///< word and phoneme errors
  double seconds = 0;        ///< wall-clock time of the decoding
};

/// The pronounce task tested: the model decoded greedily and with beam search, and Festival's
/// letter-to-sound rules, on the same test words.
struct PronunciationScores {
  std::string data;                              ///< PronunciationData::summary()
  std::size_t words = 0;                         ///< test words decoded
  std::size_t test_words = 0;                    ///< test words in the split
  std::vector<PronunciationDecoding> decodings;  ///< greedy first, then each beam size asked
  PronunciationDecoding festival;                ///< Festival's letter-to-sound rules
  std::string festival_rules;                    ///< the rule file read
  /// A few test words: the word, the greedy output and the references joined by " | ".
  struct Example {
    std::string word;        ///< the word
    std::string output;      ///< what greedy decoding wrote
    std::string references;  ///< every reference pronunciation
    bool correct = false;    ///< the output is one of them
  };
  std::vector<Example> examples;  ///< up to eight, evenly spread over the words tested
};

/// Tests the pronounce task on the first `words` test words (all of them if 0 or more): greedy
/// decoding, then beam search with each of `beams`; and Festival's rules `festival` (read from the
/// file `rules_file`) on the same words.
PronunciationScores score_pronunciations(tfm::Transformer& model, const PronunciationTask& task,
                                         std::size_t words, const std::vector<std::size_t>& beams,
                                         const LetterToSound& festival,
                                         const std::string& rules_file);
}  // namespace pronounce
