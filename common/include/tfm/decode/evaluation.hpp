/// \file evaluation.hpp
/// \brief Chapter 11: testing a trained model by decoding held-out data — exact sequences for
/// copy and translate; vowel restoration against the n-gram baselines and reference 002's three
/// test sentences; pronunciations (word and phoneme error rates) against Festival's
/// letter-to-sound rules and published results.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tfm/decode/letter_to_sound.hpp"
#include "tfm/decode/pronunciation_metrics.hpp"
#include "tfm/decode/vowel_metrics.hpp"
#include "tfm/model/transformer.hpp"
#include "tfm/train/task.hpp"

namespace tfm {

/// Copy or translate: how many held-out sequences came out exactly right.
struct SequenceEvaluation {
  std::size_t exact = 0;  ///< sequences decoded exactly
  std::size_t total = 0;  ///< sequences decoded
  /// The first few: source, what the model wrote, what it should have written.
  struct Example {
    std::string source;    ///< the source sequence
    std::string output;    ///< what the model wrote
    std::string expected;  ///< what it should have written
  };
  std::vector<Example> examples;  ///< up to three, from the first held-out batch
};

/// Decodes every held-out batch of `task` (greedy for `beam` = 1, else beam search) and compares
/// each output with its target.
SequenceEvaluation evaluate_sequences(Transformer& model, const Task& task, std::size_t beam);

/// One of reference 002's test inputs, what 002 printed for it, and what this model restores.
struct ReferenceSentence {
  std::string input;             ///< e.g. `th* t*m* tr*v*ll*r s*t d*wn`
  std::string reference_output;  ///< what reference 002's trained model printed
  std::string expected;          ///< the sentence itself
  std::string ours;              ///< what this model restores
  /// Restored exactly?
  bool correct() const { return ours == expected; }
};

/// A restoration rule and its score on the held-out windows.
struct ScoredRule {
  std::string name;        ///< e.g. "this model" or a baseline's name
  RestorationScore score;  ///< its counts over every held-out window tested
};

/// Vowel restoration on held-out windows: the model, the baselines, and 002's sentences.
struct VowelEvaluation {
  std::size_t windows = 0;        ///< held-out windows tested
  std::size_t window_length = 0;  ///< characters per window
  ScoredRule model;               ///< the model, keeping the letters of the input
  ScoredRule model_free;          ///< the model, free to rewrite every character
  /// Most frequent vowel, then 1, 2 and 3 letters on each side: fitted on the training part.
  std::vector<ScoredRule> baselines;
  std::vector<ReferenceSentence> sentences;  ///< reference 002's three test sentences
};

/// Tests the vowels task on up to `windows` held-out windows (tfm::held_out_windows), with
/// greedy decoding (`beam` = 1) or beam search, and scores the baselines on the same windows.
VowelEvaluation evaluate_vowels(Transformer& model, const Task& task, std::size_t windows,
                                std::size_t beam);

/// Generalisation: the model and the same baselines (fitted on the task's training text, not on
/// `book`) scored on up to `windows` windows of another text, which does not overlap and lie
/// evenly spread over the whole of `book` (tfm::spread_windows of its training part: build it with
/// `held_out_fraction` 0 and the task's window). `sentences` stays empty.
VowelEvaluation evaluate_vowels_on(Transformer& model, const Task& task, const VowelRestoration& book,
                                   std::size_t windows, std::size_t beam);

/// The results as the chapter prints them: the scores table (characters and vowels restored, the
/// model's two decodings and every baseline), where the model stands against each baseline, and
/// reference 002's three sentences.
std::string results_text(const VowelEvaluation& results);
/// The results on another book (evaluate_vowels_on), as the chapter prints them after
/// results_text: a heading naming `book_name`, the scores table and where the model stands
/// against each baseline, in the words of results_text.
std::string book_results_text(const VowelEvaluation& results, const std::string& book_name);
/// The results of copy or translate as the chapter prints them: a few examples, then the count
/// of sequences decoded exactly.
std::string results_text(const SequenceEvaluation& results);

/// The vowels of one line of text restored: `text` hides its vowels as `*` (e.g. `th* t*m*`).
/// Throws std::invalid_argument (from tfm::restore_source_ids) for text the model cannot read.
std::string restore_vowels(Transformer& model, const Task& task, const std::string& text,
                           std::size_t beam, bool keep_letters);

/// One way of decoding the pronounce task's test words, scored, and the time it took.
struct PronunciationDecoding {
  std::string name;          ///< e.g. "greedy" or "beam K = 3"
  std::size_t beam = 1;      ///< 1 for greedy decoding
  PronunciationScore score;  ///< word and phoneme errors
  double seconds = 0;        ///< wall-clock time of the decoding
};

/// The pronounce task tested: the model decoded greedily and with beam search, and Festival's
/// letter-to-sound rules, on the same test words.
struct PronunciationEvaluation {
  std::string data;                             ///< PronunciationData::summary()
  std::size_t words = 0;                        ///< test words decoded
  std::size_t test_words = 0;                   ///< test words in the split
  std::vector<PronunciationDecoding> decodings; ///< greedy first, then each beam size asked
  PronunciationDecoding festival;               ///< Festival's letter-to-sound rules
  std::string festival_rules;                   ///< the rule file read
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
PronunciationEvaluation evaluate_pronunciations(Transformer& model, const Task& task, std::size_t words,
                                                const std::vector<std::size_t>& beams,
                                                const LetterToSound& festival, const std::string& rules_file);
/// The results as the chapter prints them: the error rates of every decoding with its time, of
/// Festival's rules and of published systems (marked as measured elsewhere), and examples.
std::string results_text(const PronunciationEvaluation& results);

/// The pronunciations of `words` (any words, in the dictionary or not), one string of phonemes
/// each, decoded greedily (`beam` = 1) or with beam search; one that reached the most phonemes the
/// model writes without ending says it was cut off. Throws std::invalid_argument naming the word
/// for a word the model cannot read (PronunciationData::encode_words).
std::vector<std::string> pronounce_words(Transformer& model, const Task& task,
                                         const std::vector<std::string>& words, std::size_t beam);

}  // namespace tfm
