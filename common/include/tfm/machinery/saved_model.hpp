/// \file saved_model.hpp
/// \brief Machinery (not a lesson): a trained model loaded from its checkpoint only to be used (no optimizer,
/// no training): what the playground loads, with the checks and messages of the programs' --load.
#pragma once

#include <memory>
#include <string>

#include "tfm/data/vocabulary.hpp"
#include "tfm/machinery/checkpoint.hpp"
#include "tfm/model/transformer.hpp"

namespace tfm {

/// A checkpoint's model, ready to decode.
struct SavedModel {
  std::string dir;                     ///< where it was loaded from
  CheckpointHeader header;             ///< its configuration, vocabularies and extra files
  std::unique_ptr<Transformer> model;  ///< its weights, in evaluation mode
};

/// Loads the checkpoint in `dir` for a task that reads `source` and writes `target`: the header
/// (read_checkpoint_header), the vocabularies (require_same_vocabulary), the memory it needs
/// (require_memory) and the weights (load_parameters) are checked as `--load` checks them, so a
/// bad checkpoint gets the same CheckpointError naming the file and the problem.
SavedModel load_saved_model(const std::string& dir, const Vocabulary& source,
                            const Vocabulary& target);

}  // namespace tfm
