// libFuzzer target: one verse of a SWORD module's OSIS markup (translate::osis_to_text, what the
// Bible reader runs on every verse). Any input must give a text or an OsisError; a text has no
// run of two spaces and no space at either end, and lowercasing its chapter opening keeps its
// length in bytes.
#include <cstddef>
#include <cstdint>
#include <string>

#include "translate/osis_text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string osis(reinterpret_cast<const char*>(data), size);
  try {
    const std::string text = translate::osis_to_text(osis);
    if (text.find("  ") != std::string::npos) __builtin_trap();
    if (!text.empty() && (text.front() == ' ' || text.back() == ' ')) __builtin_trap();
    if (translate::lowercase_chapter_opening(text).size() != text.size()) __builtin_trap();
  } catch (const translate::OsisError&) {
  }
  return 0;
}
