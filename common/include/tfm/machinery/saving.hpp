/// \file saving.hpp
/// \brief Machinery (not a lesson): when a training run saves — a checkpoint every few steps that never stops
/// the run, and a rescue copy when the final save fails, so that what was trained is not lost.
///
/// Save first, explain after: nothing that could fail (a temporary folder's name, a message) is
/// computed before the save is tried, and every error a save meets, whatever threw it, becomes
/// a CheckpointError with the rescue behind it.
#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "tfm/core/parameter.hpp"
#include "tfm/machinery/checkpoint.hpp"
#include "tfm/train/adam.hpp"
#include "tfm/train/trainer.hpp"

namespace tfm {

/// What TrainingOptions::checkpoint needs for the paper's periodic checkpoints: saves
/// `prefix-stepS` (optimizer state included; a trailing '/' of `prefix` is dropped) and returns
/// "saved ..."; a save that fails returns a warning instead of throwing, since one lost snapshot
/// must not cost the whole run.
std::function<std::string(std::size_t step, const TrainingHistory& so_far)> periodic_checkpoints(
    const std::string& prefix, const CheckpointHeader& header, const ParameterList& params,
    const Adam& optimizer);

/// The folders a model that cannot go where it was asked to may go, `name` in each, best first:
/// `$TMPDIR` (when it names a directory), `/tmp`, the current directory. Never throws: it is
/// asked only once a save has failed.
std::vector<std::string> rescue_places(const std::string& name);

/// save_checkpoint(dir, ...); if that fails, the same checkpoint is written to the first of
/// `rescue_dirs` that takes it, so that what was trained (an hour, maybe) is not lost to a full
/// disk or a directory that vanished, and CheckpointError is thrown with both messages and the
/// place it was saved (or every place that failed).
void save_checkpoint_or_rescue(const std::string& dir, const std::vector<std::string>& rescue_dirs,
                               const CheckpointHeader& header, const ParameterList& params,
                               const Adam* optimizer = nullptr);

/// The save at the end of a program's training, with `history` (the run's losses) added to the
/// header's (tfm::with_loss_history): to `dir` (--save); when `dir` is "" but training was
/// stopped by a signal (history.stopped), to `<temp>/<program>-stopped-<pid>`, so that what was
/// trained is kept all the same. A save that fails goes to `<temp>/<program>-rescued-<pid>`
/// (save_checkpoint_or_rescue; `<temp>` is the first of rescue_places that works). Says where on
/// `out`; does nothing when there is nowhere to save.
void save_trained_model(const std::string& program, const std::string& dir,
                        const TrainingHistory& history, const CheckpointHeader& header,
                        const ParameterList& params, const Adam* optimizer, std::ostream& out);

}  // namespace tfm
