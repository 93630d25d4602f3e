#include "tfm/machinery/saved_model.hpp"

#include "tfm/core/parameter.hpp"
#include "tfm/machinery/memory_estimate.hpp"

namespace tfm {

SavedModel load_saved_model(const std::string& dir, const Vocabulary& source,
                            const Vocabulary& target) {
  SavedModel saved{dir, read_checkpoint_header(dir), nullptr};
  require_same_vocabulary(saved.header.src_vocabulary, source, "source");
  require_same_vocabulary(saved.header.tgt_vocabulary, target, "target");
  const Config& config = saved.header.config;
  config.validate();
  require_memory(loading_memory(config));
  saved.model = std::make_unique<Transformer>(config, config.seed);
  load_parameters(dir, parameters_of(*saved.model));
  saved.model->set_training(false);
  return saved;
}

}  // namespace tfm
