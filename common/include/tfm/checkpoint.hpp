/// \file checkpoint.hpp
/// \brief Saving and loading a trained model: a directory with the configuration, the
/// vocabularies, one `.npy` file per named parameter and, optionally, the optimizer's state.
///
/// \code
/// DIR/config.txt                       key=value, one per line (tfm::Config's keys)
/// DIR/src_vocabulary.txt               tfm::Vocabulary::save
/// DIR/tgt_vocabulary.txt
/// DIR/parameters/<name>.npy            e.g. parameters/encoder.layers.0.self_attn.w_q.weight.npy
/// DIR/optimizer/state.txt              steps=N        (only with an optimizer)
/// DIR/optimizer/<name>.m.npy, .v.npy   Adam's moments
/// \endcode
///
/// Writing is atomic: everything goes to a temporary directory beside DIR, which then replaces
/// DIR by renames, so a failed save (a full disk, a crash) leaves the previous checkpoint intact.
#pragma once

#include <stdexcept>
#include <string>

#include "tfm/adam.hpp"
#include "tfm/config.hpp"
#include "tfm/parameter.hpp"
#include "tfm/vocabulary.hpp"

namespace tfm {

/// Thrown for a checkpoint that cannot be written or read; the message names the file and what
/// is wrong with it (a missing or extra parameter, a wrong shape, a truncated file, ...).
class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What a checkpoint says about the model besides its weights.
struct CheckpointHeader {
  Config config;              ///< the model's configuration
  Vocabulary src_vocabulary;  ///< what the encoder reads
  Vocabulary tgt_vocabulary;  ///< what the decoder writes
};

/// Writes a checkpoint of `params` (and of `optimizer`'s state, unless null) to `dir`, atomically.
void save_checkpoint(const std::string& dir, const CheckpointHeader& header,
                     const ParameterList& params, const Adam* optimizer = nullptr);

/// Reads the configuration and vocabularies of the checkpoint in `dir`. An unknown or malformed
/// configuration line is a CheckpointError naming the file and the line.
CheckpointHeader read_checkpoint_header(const std::string& dir);

/// Copies the weights saved in `dir` into `params`, after checking that every registered
/// parameter has a file of exactly its shape and that no file is left over. Nothing is
/// changed unless everything checks out.
void load_parameters(const std::string& dir, const ParameterList& params);

/// Does the checkpoint in `dir` hold an optimizer state?
bool has_optimizer_state(const std::string& dir);

/// Restores `optimizer`'s step count and moments from `dir` (the same parameters in the same
/// order as when it was saved; checked).
void load_optimizer_state(const std::string& dir, const ParameterList& params, Adam& optimizer);

/// Throws CheckpointError unless `saved` equals `expected`; names the first differing id.
/// `what` says which vocabulary ("source", "target").
void require_same_vocabulary(const Vocabulary& saved, const Vocabulary& expected,
                             const std::string& what);

}  // namespace tfm
