// libFuzzer target: Festival letter-to-sound rules (pronounce::LetterToSound::parse, what from_file runs
// on cmu_lts_rules.scm), then a few words pronounced with them. Any input must give rules or a
// std::invalid_argument naming the problem; pronouncing may only throw for a letter without a tree.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "pronounce/letter_to_sound.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const pronounce::LetterToSound rules = pronounce::LetterToSound::parse(text, "rules.scm");
    for (const char* word : {"a", "ab", "box", "pronunciation"}) {
      try {
        rules.pronounce(word);
      } catch (const std::invalid_argument&) {
      }
    }
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
