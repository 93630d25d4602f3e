/// \file scoring.hpp
/// \brief Task (chapter 11): testing a trained model by generating from held-out data — exact sequences
/// for copy and translate; vowel restoration against the n-gram baselines and reference 002's
/// three test sentences.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tfm/model/transformer.hpp"
#include "tfm/tasks/task.hpp"
#include "tfm/tasks/vowel_metrics.hpp"
#include "tfm/tasks/vowel_task.hpp"

namespace tfm {

/// Copy or translate: how many held-out sequences came out exactly right.
struct SequenceScores {
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
SequenceScores score_sequences(Transformer& model, const Task& task, std::size_t beam);

/// The model's choice at one hidden vowel of a sentence whose vowels are known.
struct VowelChoice {
  std::size_t position = 0;     ///< index of the `*` in the sentence
  char right = 0;               ///< the vowel the sentence has there
  float right_probability = 0;  ///< the model's probability of it, among a, e, i, o, u
  char rival = 0;               ///< the likeliest other vowel
  float rival_probability = 0;  ///< its probability
  /// How far the right vowel leads its rival (negative: greedy decoding picks the rival).
  float lead() const { return right_probability - rival_probability; }
};

/// How sure `model` is of each hidden vowel of `expected` (`input` is `expected` with its vowels
/// hidden as `*`): the decoder reads `expected` itself (teacher forcing), and at each `*` the
/// logits of the five vowels, the only choices decoding allows there, go through a softmax.
/// Greedy decoding restores `expected` exactly when the right vowel leads at every `*`.
/// Throws std::invalid_argument naming the problem when `expected` does not fit `input`.
std::vector<VowelChoice> vowel_choices(Transformer& model, const VowelTask& task,
                                       const std::string& input, const std::string& expected);

/// One of reference 002's test inputs, what 002 printed for it, and what this model restores.
struct ReferenceSentence {
  std::string input;             ///< e.g. `th* t*m* tr*v*ll*r s*t d*wn`
  std::string reference_output;  ///< what reference 002's trained model printed
  std::string expected;          ///< the sentence itself
  std::string ours;              ///< what this model restores
  VowelChoice closest;           ///< the hidden vowel whose right answer leads the least
  /// Restored exactly?
  bool correct() const { return ours == expected; }
};

/// A restoration rule and its score on the held-out windows.
struct ScoredRule {
  std::string name;        ///< e.g. "this model" or a baseline's name
  RestorationScore score;  ///< its counts over every held-out window tested
};

/// Vowel restoration on held-out windows: the model, the baselines, and 002's sentences.
struct VowelScores {
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
VowelScores score_vowels(Transformer& model, const VowelTask& task, std::size_t windows,
                         std::size_t beam);

/// Generalisation: the model and the same baselines (fitted on the task's training text, not on
/// `text`) scored on up to `windows` windows of another text, which do not overlap and lie
/// evenly spread over the whole of `text` (tfm::spread_windows of its training part: build it with
/// `held_out_fraction` 0 and the task's window). `sentences` stays empty.
VowelScores score_vowels_on(Transformer& model, const VowelTask& task, const VowelRestoration& text,
                            std::size_t windows, std::size_t beam);

}  // namespace tfm
