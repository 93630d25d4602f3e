#include "pronounce/report.hpp"

#include "tfm/support/format.hpp"

namespace pronounce {

using tfm::format;

std::string results_text(const PronunciationScores& r) {
  std::string text = "CMUdict 0.4 (Festival's copy): " + r.data;
  text += format(
      "Test words (5%% of the words, by a hash of the word; never trained on): %zu of %zu "
      "decoded\n",
      r.words, r.test_words);
  text += format("  %-44s %8s %8s %10s\n", "", "WER", "PER", "seconds");
  const auto line = [&text](const PronunciationDecoding& d) {
    text +=
        format("  %-44s %7.2f%% %7.2f%% %10.2f\n", d.name.c_str(),
               100.0 * d.score.word_error_rate(), 100.0 * d.score.phoneme_error_rate(), d.seconds);
  };
  for (const PronunciationDecoding& d : r.decodings)
    line({"this model, " + d.name, d.beam, d.score, d.seconds});
  line(r.festival);
  text +=
      "  (Festival's rules were trained on CMUdict 0.4, most likely on every word of it, these "
      "test\n"
      "   words included: their score is flattered. Its phones are read as ours: stress dropped, "
      "ax = ah.)\n";
  text +=
      "\nPublished on CMUdict, for scale only: another version of the dictionary, another split,\n"
      "not measured here:\n"
      "  joint-sequence models (Bisani & Ney 2008)            about 24-25% WER\n"
      "  LSTM encoder-decoders (Yao & Zweig 2015; Rao et al. 2015)  about 21-24% WER\n"
      "  a small Transformer (Yolchuyeva et al. 2019)          about 22% WER, 5% PER\n";
  text += "\nExamples (greedy decoding; references separated by |):\n";
  for (const auto& e : r.examples)
    text += format("  %-16s -> %-28s %s\n", e.word.c_str(), e.output.c_str(),
                   e.correct ? "(correct)" : ("(expected: " + e.references + ")").c_str());
  return text;
}

}  // namespace pronounce
