// libFuzzer target: the tokenizer file a translation checkpoint carries (translate::Bpe::parse).
// Any input must give a tokenizer or a TokenizerError; a tokenizer it gives must write itself
// back as text it reads again to the same tokenizer, and decode what it encodes from its own
// characters.
#include <cstddef>
#include <cstdint>
#include <string>

#include "translate/bpe.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const translate::Bpe bpe = translate::Bpe::parse(text, "tokenizer.txt");
    const translate::Bpe again = translate::Bpe::parse(bpe.to_text(), "tokenizer.txt");
    if (again.merges() != bpe.merges() || again.characters() != bpe.characters()) __builtin_trap();
    std::string sample;
    for (const std::string& c : bpe.characters()) sample += c;
    if (!bpe.unknown_characters(sample).empty()) __builtin_trap();
    bpe.encode(sample + " " + sample);
  } catch (const translate::TokenizerError&) {
  }
  return 0;
}
