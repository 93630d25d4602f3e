// libFuzzer target: the .npy reader (tfm::parse_npy, what load_npy_file runs on a file's bytes).
// Any input must end in an NpyArray whose values fill its shape, or in an NpyError; anything
// else (another exception, a sanitizer report, a crash) is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "tfm/machinery/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    const tfm::NpyArray array = tfm::parse_npy(bytes, "fuzz.npy");
    std::size_t count = 1;
    for (const std::size_t extent : array.shape) count *= extent;
    if (count != array.values.size()) __builtin_trap();  // the shape must describe the values
    try {
      tfm::require_finite(array, "fuzz.npy");  // the checkpoint loader's second look
    } catch (const tfm::NpyError&) {
    }
  } catch (const tfm::NpyError&) {
  }
  return 0;
}
