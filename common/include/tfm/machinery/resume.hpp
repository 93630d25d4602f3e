/// \file resume.hpp
/// \brief Machinery (not a lesson): resuming a run saved in a checkpoint, so that training in pieces gives the
/// weights of one uninterrupted run, bit for bit, dropout included.
#pragma once

#include <cstddef>
#include <string>

#include "tfm/core/parameter.hpp"
#include "tfm/model/transformer.hpp"
#include "tfm/train/adam.hpp"

namespace tfm {

/// Prepares a model and an optimizer loaded from a checkpoint to go on exactly as the saved run
/// would have: every Dropout skips the masks of the optimizer's steps_taken() steps (one
/// training forward each). The model must have been built with the saved run's seed. The
/// batches need nothing: train() asks for batch steps_taken() next.
void resume_training(Transformer& model, const Adam& optimizer);

/// Loads the checkpoint `dir` into `params` (the parameters of `model`, built with the
/// checkpoint's configuration and seed) and, if the checkpoint holds one, Adam's state into
/// `optimizer`; then resume_training. Returns the steps already trained. Throws CheckpointError as
/// load_parameters and load_optimizer_state do, before anything is changed.
std::size_t resume_from(const std::string& dir, Transformer& model, const ParameterList& params,
                        Adam& optimizer);

}  // namespace tfm
