// libFuzzer target: a Festival compiled lexicon (pronounce::parse_festival_lexicon, what
// read_festival_lexicon runs on CMUdict's text), then the split and batches of
// pronounce::PronunciationData. Any input must give words or a DictionaryError (std::invalid_argument
// for a dictionary too small to split); every word it gives must be lowercase letters with at
// least one pronunciation of known phonemes, and batch into ids of the two vocabularies.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "pronounce/pronunciations.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<pronounce::DictionaryWord> words;
  try {
    words = pronounce::parse_festival_lexicon(text, "dict.out");
  } catch (const pronounce::DictionaryError&) {
    return 0;
  }
  for (const pronounce::DictionaryWord& w : words) {
    if (w.word.empty() || w.pronunciations.empty()) __builtin_trap();
    for (const char c : w.word)
      if (c < 'a' || c > 'z') __builtin_trap();
    for (const auto& p : w.pronunciations)
      if (p.empty()) __builtin_trap();
  }
  try {
    const pronounce::PronunciationData split(words);
    for (const pronounce::WordSplit part :
         {pronounce::WordSplit::kTrain, pronounce::WordSplit::kHeldOut,
          pronounce::WordSplit::kTest})
      split.batch(part, 0, 8);
    split.training_batch(3, 1, 5);
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
