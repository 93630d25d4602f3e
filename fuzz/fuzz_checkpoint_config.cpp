// libFuzzer target: a checkpoint's config.txt (tfm::parse_checkpoint_config, what
// read_checkpoint_header runs on the file's text), then the memory estimate of what it accepts.
// Any input must give a valid Config or a CheckpointError.
#include <cstddef>
#include <cstdint>
#include <string>

#include "tfm/machinery/checkpoint.hpp"
#include "tfm/machinery/checkpoint_config.hpp"
#include "tfm/machinery/memory_estimate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const tfm::Config config = tfm::parse_checkpoint_config(text, "config.txt");
    config.validate();  // what was accepted must be valid (validate throws otherwise: a bug)
    // Every accepted value reads back as itself, as a saved checkpoint would write it.
    tfm::Config again;
    for (const std::string& key : tfm::Config::keys()) again.set(key, config.get(key));
    for (const std::string& key : tfm::Config::keys())
      if (again.get(key) != config.get(key)) __builtin_trap();
    // The estimate of any accepted configuration, on a 1 GiB machine: a number or a MemoryError.
    try {
      tfm::require_memory(tfm::loading_memory(config), {1024.0 * 1024 * 1024, "fuzz"});
      tfm::require_memory(tfm::training_memory(config, config.batch_size),
                          {1024.0 * 1024 * 1024, "fuzz"});
    } catch (const tfm::MemoryError&) {
    }
  } catch (const tfm::CheckpointError&) {
  }
  return 0;
}
