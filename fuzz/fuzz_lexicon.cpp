// libFuzzer target: a Festival compiled lexicon (tfm::parse_festival_lexicon, what
// read_festival_lexicon runs on CMUdict's text), then the split and batches of
// tfm::PronunciationData. Any input must give words or a DictionaryError (std::invalid_argument
// for a dictionary too small to split); every word it gives must be lowercase letters with at
// least one pronunciation of known phonemes, and batch into ids of the two vocabularies.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tfm/data/pronunciations.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<tfm::DictionaryWord> words;
  try {
    words = tfm::parse_festival_lexicon(text, "dict.out");
  } catch (const tfm::DictionaryError&) {
    return 0;
  }
  for (const tfm::DictionaryWord& w : words) {
    if (w.word.empty() || w.pronunciations.empty()) __builtin_trap();
    for (const char c : w.word)
      if (c < 'a' || c > 'z') __builtin_trap();
    for (const auto& p : w.pronunciations)
      if (p.empty()) __builtin_trap();
  }
  try {
    const tfm::PronunciationData split(words);
    for (const tfm::WordSplit part : {tfm::WordSplit::kTrain, tfm::WordSplit::kDev, tfm::WordSplit::kTest})
      split.batch(part, 0, 8);
    split.training_batch(3, 1, 5);
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
