/// \file saving.hpp
/// \brief Chapter 11: when a training run saves — a checkpoint every few steps that never stops
/// the run, and a rescue copy when the final save fails, so that what was trained is not lost.
#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>

#include "tfm/core/parameter.hpp"
#include "tfm/train/adam.hpp"
#include "tfm/train/checkpoint.hpp"

namespace tfm {

/// What TrainingOptions::checkpoint needs for the paper's periodic checkpoints: saves
/// `prefix-step<S>` (optimizer state included) and returns "saved ..."; a save that fails returns
/// a warning instead of throwing, since one lost snapshot must not cost the whole run.
std::function<std::string(std::size_t step)> periodic_checkpoints(const std::string& prefix,
                                                                  const CheckpointHeader& header,
                                                                  const ParameterList& params,
                                                                  const Adam& optimizer);

/// save_checkpoint(dir, ...); if that fails, the same checkpoint is written to `rescue_dir`
/// instead, so that what was trained (an hour, maybe) is not lost to a full disk or a directory
/// that vanished, and CheckpointError is thrown with both messages and the place it was saved.
void save_checkpoint_or_rescue(const std::string& dir, const std::string& rescue_dir,
                               const CheckpointHeader& header, const ParameterList& params,
                               const Adam* optimizer = nullptr);

/// The save at the end of a program's training: to `dir` (--save); when `dir` is "" but training
/// was `stopped` by Ctrl-C, to `<temp>/<program>-stopped-<pid>`, so that what was trained is kept
/// all the same. A save that fails goes to `<temp>/<program>-rescued-<pid>`
/// (save_checkpoint_or_rescue). Says where on `out`; does nothing when there is nowhere to save.
void save_trained_model(const std::string& program, const std::string& dir, bool stopped,
                        const CheckpointHeader& header, const ParameterList& params,
                        const Adam* optimizer, std::ostream& out);

}  // namespace tfm
