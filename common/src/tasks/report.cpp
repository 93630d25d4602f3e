#include "tfm/tasks/report.hpp"

#include <algorithm>

#include "tfm/support/format.hpp"

namespace tfm {

namespace {

// The scores table and, in words, where the model stands against each baseline.
std::string scores_text(const VowelScores& r) {
  std::string text = format("  %-60s %10s %8s\n", "", "characters", "vowels");
  const auto line = [&text](const ScoredRule& rule) {
    text += format("  %-60s %10.4f %8.4f\n", rule.name.c_str(), rule.score.character_accuracy(),
                   rule.score.vowel_accuracy());
  };
  line(r.model);
  line(r.model_free);
  for (const ScoredRule& baseline : r.baselines) line(baseline);

  // Where the model stands, said in words from the same numbers.
  std::string beaten, ahead;
  for (const ScoredRule& baseline : r.baselines) {
    const std::string name = baseline.name.substr(baseline.name.find(": ") + 2);
    const bool better = r.model.score.vowel_accuracy() > baseline.score.vowel_accuracy();
    (better ? beaten : ahead) += "  - " + name + "\n";
  }
  return text + "\nThe model (letters kept) restores more vowels than:\n" +
         (beaten.empty() ? "  - none\n" : beaten) + "and as many or fewer than:\n" +
         (ahead.empty() ? "  - none\n" : ahead);
}

// The word of `sentence` around `position`, its letter there in brackets: `st[o]rmy`.
std::string marked_word(const std::string& sentence, std::size_t position) {
  const std::size_t begin = sentence.rfind(' ', position) + 1;  // npos + 1 = 0: the first word
  const std::size_t end = std::min(sentence.find(' ', position), sentence.size());
  return sentence.substr(begin, position - begin) + "[" + sentence[position] + "]" +
         sentence.substr(position + 1, end - position - 1);
}

}  // namespace

std::string results_text(const VowelScores& r) {
  std::string text =
      format("Held-out vowel restoration: %zu windows of %zu characters, %zu hidden vowels\n",
             r.windows, r.window_length, r.model.score.vowels);
  text += scores_text(r);
  text += "\nReference 002's test sentences:\n";
  int input_width = 5, reference_width = 12, ours_width = 4;  // at least the headings' lengths
  for (const ReferenceSentence& s : r.sentences) {
    input_width = std::max(input_width, static_cast<int>(s.input.size()));
    reference_width = std::max(reference_width, static_cast<int>(s.reference_output.size()));
    ours_width = std::max(ours_width, static_cast<int>(s.ours.size()));
  }
  text +=
      format("  %-*s  %-*s  %s\n", input_width, "input", reference_width, "002's output", "ours");
  for (const ReferenceSentence& s : r.sentences) {
    std::string row = format("  %-*s  %-*s  %-*s  %s", input_width, s.input.c_str(),
                             reference_width, s.reference_output.c_str(), ours_width,
                             s.ours.c_str(), s.correct() ? "(correct)" : "");
    text += row.erase(row.find_last_not_of(' ') + 1) + "\n";
  }
  text +=
      "\nThe closest call in each sentence: the hidden vowel where the right one leads the least\n"
      "(probabilities among a, e, i, o, u, the decoder reading the right sentence):\n";
  for (const ReferenceSentence& s : r.sentences)
    text += format("  %-32s  %-16s %c %.2f, %c %.2f\n", s.input.c_str(),
                   marked_word(s.expected, s.closest.position).c_str(), s.closest.right,
                   static_cast<double>(s.closest.right_probability), s.closest.rival,
                   static_cast<double>(s.closest.rival_probability));
  return text;
}

std::string test_corpus_results_text(const VowelScores& r, const std::string& text_name) {
  return format(
             "Another text, %s: %zu windows of %zu characters, %zu hidden vowels\n"
             "(the model and the baselines learned from the training text only)\n",
             text_name.c_str(), r.windows, r.window_length, r.model.score.vowels) +
         scores_text(r);
}

std::string results_text(const SequenceScores& r) {
  std::string text;
  for (const SequenceScores::Example& e : r.examples)
    text += "  " + e.source + "  ->  " + e.output +
            (e.output == e.expected ? "   (correct)" : "   (expected: " + e.expected + ")") + "\n";
  return text + format("held-out sequences decoded exactly: %zu of %zu (%.1f%%)\n", r.exact,
                       r.total,
                       r.total ? 100.0 * static_cast<double>(r.exact) / static_cast<double>(r.total)
                               : 0.0);
}

}  // namespace tfm
