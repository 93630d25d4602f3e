// libFuzzer target: the vowel task's corpus preprocessing (tfm::VowelRestoration on raw text:
// normalize_text, the split, the windows and their batches). The first three bytes choose the
// window (1..48), the stride (1..4) and the held-out share (0, 0.1, ..., 0.9); the rest is the
// corpus. Any input must give a dataset or a std::invalid_argument naming the problem.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tfm/tasks/vowel_restoration.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  tfm::VowelOptions options;
  options.window = 1 + data[0] % 48;
  options.stride = 1 + data[1] % 4;
  options.held_out_fraction = (data[2] % 10) / 10.0;
  const std::string raw(reinterpret_cast<const char*>(data) + 3, size - 3);
  try {
    const tfm::VowelRestoration dataset(raw, options, "fuzz");
    // What preprocessing promises: lower-case letters and single spaces, none at either end.
    const std::string& text = dataset.text();
    for (std::size_t i = 0; i < text.size(); ++i) {
      const char c = text[i];
      if (!((c >= 'a' && c <= 'z') || c == ' ')) __builtin_trap();
      if (c == ' ' && (i == 0 || i + 1 == text.size() || text[i + 1] == ' ')) __builtin_trap();
    }
    for (const tfm::Split split : {tfm::Split::kTrain, tfm::Split::kHeldOut}) {
      const std::size_t n = dataset.num_windows(split);
      if (n == 0) continue;
      const tfm::Batch batch = dataset.batch(split, {0, n - 1});
      // The encoder sees the window with its vowels hidden; the labels are the window itself.
      const std::string last = dataset.window(split, n - 1);
      if (dataset.vocabulary().decode(tfm::row(batch.tgt_out, 1)) != last) __builtin_trap();
      if (dataset.vocabulary().decode(tfm::row(batch.src, 1)) != tfm::mask_vowels(last))
        __builtin_trap();
    }
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
