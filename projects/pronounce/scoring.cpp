#include "pronounce/scoring.hpp"

#include <algorithm>
#include <chrono>
#include <numeric>

namespace pronounce {

PronunciationScores score_pronunciations(tfm::Transformer& model, const PronunciationTask& task,
                                         std::size_t words, const std::vector<std::size_t>& beams,
                                         const LetterToSound& festival,
                                         const std::string& rules_file) {
  const PronunciationData& data = task.data();
  const std::vector<DictionaryWord>& test = data.words(WordSplit::kTest);
  PronunciationScores result;
  result.test_words = test.size();
  result.data = data.summary();
  result.words = words == 0 ? test.size() : std::min(words, test.size());
  // Batches of 128 words of similar lengths (sorted by length), so that padding costs little.
  std::vector<std::size_t> order(result.words);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return test[a].word.size() < test[b].word.size();
  });
  std::vector<std::vector<std::string>> greedy_outputs(result.words);
  const auto run = [&](const std::string& name, std::size_t beam) {
    PronunciationDecoding d{name, beam, {}, 0.0};
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::vector<std::string>> outputs(result.words);
    for (std::size_t i = 0; i < order.size(); i += 128) {
      std::vector<std::pair<const DictionaryWord*, std::size_t>> pairs;
      for (std::size_t j = i; j < std::min(order.size(), i + 128); ++j)
        pairs.emplace_back(&test[order[j]], 0);
      const tfm::TokenIds out = task.generate(model, data.pair_batch(pairs).src, beam);
      for (std::size_t b = 0; b < pairs.size(); ++b)
        outputs[order[i + b]] =
            task.target_vocabulary().split(tfm::generated_text(task.target_vocabulary(), out, b));
    }
    d.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (std::size_t w = 0; w < result.words; ++w) d.score.add(outputs[w], test[w].pronunciations);
    if (name == "greedy") greedy_outputs = outputs;
    result.decodings.push_back(d);
  };
  run("greedy", 1);
  for (const std::size_t beam : beams) run("beam search, K = " + std::to_string(beam), beam);

  result.festival_rules = rules_file;
  result.festival.name = "Festival's letter-to-sound rules";
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::vector<std::string>> festival_outputs;
  for (std::size_t w = 0; w < result.words; ++w)
    festival_outputs.push_back(festival.pronounce(test[w].word));
  result.festival.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (std::size_t w = 0; w < result.words; ++w)
    result.festival.score.add(festival_outputs[w], test[w].pronunciations);

  const auto join = [](const std::vector<std::string>& phones) {
    std::string text;
    for (const std::string& p : phones) text += (text.empty() ? "" : " ") + p;
    return text;
  };
  for (std::size_t k = 0; k < 8 && k < result.words; ++k) {
    const std::size_t w = k * result.words / 8;
    std::string references;
    bool correct = false;
    for (const auto& r : test[w].pronunciations) {
      references += (references.empty() ? "" : " | ") + join(r);
      correct = correct || r == greedy_outputs[w];
    }
    result.examples.push_back({test[w].word, join(greedy_outputs[w]), references, correct});
  }
  return result;
}

}  // namespace pronounce
