// libFuzzer target: a vocabulary file (tfm::Vocabulary::parse, what Vocabulary::load runs on the
// file's text). Any input must give a Vocabulary or a VocabularyError; a vocabulary it gives
// must encode each of its own symbols as that symbol's id and decode the id back.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tfm/data/vocabulary.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const tfm::Vocabulary vocabulary = tfm::Vocabulary::parse(text, "vocabulary.txt");
    for (std::size_t id = tfm::kFirstSymbolId; id < vocabulary.size(); ++id) {
      const auto as_id = static_cast<std::int32_t>(id);
      const std::string& symbol = vocabulary.symbol(as_id);
      if (vocabulary.encode(symbol, tfm::OnUnknown::kThrow) != std::vector<std::int32_t>{as_id})
        __builtin_trap();
      if (vocabulary.decode({as_id}) != symbol) __builtin_trap();
    }
  } catch (const tfm::VocabularyError&) {
  }
  return 0;
}
