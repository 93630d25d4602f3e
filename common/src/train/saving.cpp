#include "tfm/train/saving.hpp"

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

}  // namespace tfm
