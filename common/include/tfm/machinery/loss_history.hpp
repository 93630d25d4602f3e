/// \file loss_history.hpp
/// \brief Machinery (not a lesson): the losses a checkpoint remembers, so that the loss curve of a resumed run
/// shows every step since the first, not only the steps since the resume.
///
/// The history is one of the checkpoint's extra files, `files/loss_history.tsv`:
/// \code
/// # tfm loss history v1: kind, step, loss
/// train	1	3.4012
/// held-out	100	0.9521
/// \endcode
/// A checkpoint without it (saved before it existed, or an average) resumes as before, and its
/// curve starts at the resume.
#pragma once

#include <iosfwd>
#include <string>

#include "tfm/machinery/checkpoint.hpp"
#include "tfm/train/trainer.hpp"

namespace tfm {

/// The history as the file holds it: the training loss of every step, then the held-out losses.
std::string loss_history_text(const TrainingHistory& history);

/// Reads loss_history_text's format. Throws CheckpointError naming `where` and the line for a
/// malformed line, a loss that is not a finite number, or steps that do not increase.
TrainingHistory parse_loss_history(const std::string& text, const std::string& where);

/// The history `header` carries (empty without one).
TrainingHistory saved_loss_history(const CheckpointHeader& header);

/// `earlier`'s steps, then `later`'s: the curve of a run that resumed where `earlier` stopped.
TrainingHistory joined(TrainingHistory earlier, const TrainingHistory& later);

/// Carries the history of the checkpoint `saved` (read from `dir`) over into `header`, the header
/// of the run that resumes it. A history that cannot be read is left behind with a warning on
/// `out` that names the problem: the model still loads, and the curve starts at the resume.
void keep_loss_history(const CheckpointHeader& saved, const std::string& dir,
                       CheckpointHeader& header, std::ostream& out);

/// `header` with its history extended by `this_run`: what a save after (or during) a run records.
CheckpointHeader with_loss_history(CheckpointHeader header, const TrainingHistory& this_run);

}  // namespace tfm
