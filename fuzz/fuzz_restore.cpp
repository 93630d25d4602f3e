// libFuzzer target: the text of chapter 11's --restore (tfm::restore_input_ids with the vowel
// task's vocabulary and a 64-row positional table, then tfm::vowel_forcing, which decoding
// applies to it). Any input must give ids or a std::invalid_argument (a VocabularyError names
// the character); accepted ids must force exactly the letters and spaces the text shows.
// The same bytes typed as plain text (`--restore -`, the playground: tfm::read_typed_text, cut by
// tfm::text_windows) must always be readable: every window fits the table and is read as ids.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tfm/decode/decoding.hpp"
#include "tfm/tasks/vowel_restoration.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const tfm::Vocabulary vocabulary = tfm::vowel_vocabulary();
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const std::vector<std::int32_t> ids = tfm::restore_input_ids(vocabulary, text, 64);
    if (ids.empty() || ids.size() > 64) __builtin_trap();
    tfm::TokenIds src = tfm::TokenIds::from_shape({1, ids.size()});
    std::copy(ids.begin(), ids.end(), src.begin());
    const tfm::TokenIds forced = tfm::vowel_forcing(src, vocabulary, vocabulary);
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const bool hidden = text[i] == tfm::kVowelMask;  // every accepted character is one byte
      if ((forced(0, i) == tfm::kFreeToken) != hidden) __builtin_trap();
      if (!hidden && forced(0, i) != ids[i]) __builtin_trap();
    }
  } catch (const std::invalid_argument&) {
  }
  const tfm::TypedText typed = tfm::read_typed_text(text);
  std::string joined;
  for (const std::string& window : tfm::text_windows(typed.masked, 40)) {
    if (window.empty() || window.size() > 40) __builtin_trap();
    if (tfm::restore_input_ids(vocabulary, window, 64).size() != window.size()) __builtin_trap();
    joined += window;
  }
  if (joined != typed.masked) __builtin_trap();
  return 0;
}
