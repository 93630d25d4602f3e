#include "tfm/train/saving.hpp"

#include <unistd.h>

#include <filesystem>
#include <ostream>

namespace tfm {

std::function<std::string(std::size_t step)> periodic_checkpoints(const std::string& prefix,
                                                                  const CheckpointHeader& header,
                                                                  const ParameterList& params,
                                                                  const Adam& optimizer) {
  return [prefix, header, &params, &optimizer](std::size_t step) {
    const std::string dir = prefix + "-step" + std::to_string(step);
    try {
      save_checkpoint(dir, header, params, &optimizer);
    } catch (const CheckpointError& e) {
      return std::string("warning: ") + e.what() + "; training goes on";
    }
    return "saved " + dir;
  };
}

void save_checkpoint_or_rescue(const std::string& dir, const std::string& rescue_dir,
                               const CheckpointHeader& header, const ParameterList& params,
                               const Adam* optimizer) {
  try {
    save_checkpoint(dir, header, params, optimizer);
  } catch (const CheckpointError& e) {
    try {
      save_checkpoint(rescue_dir, header, params, optimizer);
    } catch (const CheckpointError& rescue_error) {
      throw CheckpointError(std::string(e.what()) + "; saving to '" + rescue_dir +
                            "' instead failed too: " + rescue_error.what());
    }
    throw CheckpointError(std::string(e.what()) + "; the model was saved to '" + rescue_dir +
                          "' instead");
  }
}

void save_trained_model(const std::string& program, const std::string& dir, bool stopped,
                        const CheckpointHeader& header, const ParameterList& params,
                        const Adam* optimizer, std::ostream& out) {
  const auto temp_dir = [&](const std::string& why) {
    return (std::filesystem::temp_directory_path() / (program + why + std::to_string(::getpid())))
        .string();
  };
  const std::string where = dir.empty() && stopped ? temp_dir("-stopped-") : dir;
  if (where.empty()) return;
  save_checkpoint_or_rescue(where, temp_dir("-rescued-"), header, params, optimizer);
  out << "saved " << where << "\n";
  if (stopped) out << "training was stopped; go on with --load " << where << " --steps N\n";
}

}  // namespace tfm
