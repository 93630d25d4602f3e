/// \file checkpoint.hpp
/// \brief Machinery (not a lesson): saving and loading a trained model: a directory with the configuration, the
/// vocabularies, one `.npy` file per named parameter and, optionally, the optimizer's state.
///
/// \code
/// DIR/config.txt                       "# preset NAME", key=value for every tfm::Config key, and
///                                      "# model as saved: d_model=... n_heads=..." (the model keys)
/// DIR/src_vocabulary.txt               tfm::Vocabulary::save
/// DIR/tgt_vocabulary.txt
/// DIR/parameters/<name>.npy            float32, e.g. parameters/encoder.layers.0.self_attn.w_q.weight.npy
/// DIR/optimizer/state.txt              steps=N, weights=<fingerprint>  (only with an optimizer)
/// DIR/optimizer/<name>.m.npy, .v.npy   Adam's first and second moments
/// DIR/files/<name>                     the header's extra files, e.g. a project's tokenizer, and
///                                      loss_history.tsv, the losses so far (optional)
/// \endcode
///
/// The parameter names are PyTorch `state_dict` names, so `tools/checkpoint_interop.py` moves a
/// checkpoint into a PyTorch model (and back) by name, with `numpy.load` / `numpy.save`.
///
/// config.txt's format is checkpoint_config.hpp's. Writing is atomic (machinery/safe_directory.hpp): a
/// save that fails (a full disk, a bad name) leaves the previous checkpoint as it was, the
/// leftovers of a save that was killed are removed by the next save beside them, and a read of a
/// missing DIR points at a surviving `DIR.previous.PID.N`. Checkpoints written before the
/// extra files existed have no `files/` and load as before.
///
/// Reading checks everything before changing anything: a missing, extra, truncated or
/// wrongly-shaped parameter, a NaN or an infinity in any tensor, a malformed configuration, one
/// whose model keys differ from the "# model as saved" record (n_heads, which changes no shape),
/// one too large for the machine's memory (tfm::loading_memory), a negative second moment, an
/// impossible step count, an optimizer state saved with other weights (from another run), or a
/// file that is a pipe or a device is a CheckpointError that names the file and the problem, and
/// the model (or optimizer) is left untouched.
///
/// Resuming repeats uninterrupted training bit for bit, dropout included, with nothing saved but
/// the above: the configuration holds the seed, the optimizer's step count says which batch
/// comes next and how far every dropout generator has gone (see tfm::resume_training).
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "tfm/core/parameter.hpp"
#include "tfm/data/vocabulary.hpp"
#include "tfm/model/config.hpp"
#include "tfm/train/adam.hpp"

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
  /// Named extra files saved and loaded with the model, name -> bytes (e.g. the tokenizer a
  /// project trained with, so that `--load` reads text as training did). A name is a plain file
  /// name: not empty, not starting with '.', without '/' or a zero byte.
  std::map<std::string, std::string> files = {};
  /// The training run the weights come from (new_run_id() when a run starts from scratch, kept
  /// when it resumes with --load), saved as config.txt's "# run ID" line: checkpoints of two
  /// runs are not averaged. "" for none (older checkpoints).
  std::string run = "";
};

/// The extra file that holds the losses of the training so far (tfm/machinery/loss_history.hpp).
inline constexpr const char* kLossHistoryFile = "loss_history.tsv";

/// A fresh name for a training run: 16 random hexadecimal digits.
std::string new_run_id();

/// The most bytes one extra file of a checkpoint may hold when it is read back: 64 MiB.
inline constexpr std::size_t kMaxCheckpointFileBytes = std::size_t{64} << 20;

/// Writes a checkpoint of `params` (and of `optimizer`'s state, unless null) to `dir`, atomically.
/// `dir` may already hold a checkpoint, which is replaced; any other existing file or non-empty
/// directory is refused (a typo must not delete a folder), and so are a checkpoint that also holds
/// files of the user's (a save never deletes what it did not write) and a symbolic link. Also refused, before anything is
/// written: a vocabulary larger than the configuration's vocabulary size, and a parameter name
/// that cannot be a file name (empty, starting with '.', containing '/') or is registered twice,
/// and an extra file whose name is not a plain file name.
void save_checkpoint(const std::string& dir, const CheckpointHeader& header,
                     const ParameterList& params, const Adam* optimizer = nullptr);

/// Throws CheckpointError naming the problem if save_checkpoint could not write to `dir`: a file
/// or a non-empty directory that holds no checkpoint, or a parent that is missing, not a
/// directory, or not writable, or a name too long for the names a save writes beside it (with
/// `step_checkpoints`, for `DIR-stepS` too). Lets a program refuse a bad `--save` before
/// training, not after.
void check_checkpoint_destination(const std::string& dir, bool step_checkpoints = false);

/// Reads the configuration, the vocabularies and the extra files of the checkpoint in `dir`. An
/// extra file that is not a regular file, or larger than kMaxCheckpointFileBytes, is a
/// CheckpointError naming it. An unknown, repeated or
/// malformed configuration line is a CheckpointError naming the file and the line, and so is a
/// missing key that defines the network (sizes, layers, heads, biases, shared embedding,
/// max_len). A missing training key (a checkpoint written before the key existed) keeps
/// Config's default. A configuration that would need more memory than the machine has
/// (require_memory(loading_memory(config))) is refused with the estimate, before any tensor of
/// it exists.
CheckpointHeader read_checkpoint_header(const std::string& dir);

/// Removes what saves killed earlier left beside the checkpoint `dir` (and beside the step
/// checkpoints --save-every writes next to it): tfm::remove_dead_leftovers for checkpoint
/// directories. Returns the removed paths. save_checkpoint() calls it before writing and after
/// the swap; a program may call it at start.
std::vector<std::string> remove_dead_leftovers(const std::string& dir);

/// Copies the weights saved in `dir` into `params`, after checking that every registered
/// parameter has a file of exactly its shape and that no file is left over. Nothing is
/// changed unless everything checks out.
void load_parameters(const std::string& dir, const ParameterList& params);

/// Checkpoint averaging (the paper, section 6.1: "a single model obtained by averaging the last
/// 5 checkpoints, which were written at 10-minute intervals"): copies into `params` the mean,
/// entry by entry, of the weights saved in `dirs`. Late in training the weights wander around a
/// minimum from step to step; their mean sits closer to it than any one snapshot. Each checkpoint
/// is checked as load_parameters checks it, and all must share the model keys of the
/// configuration and the vocabularies of the first. They must also come from one training run
/// (CheckpointHeader::run; for checkpoints that do not say, every configuration key must agree,
/// the seed included): the mean of two runs' weights is not a model of either, even when both
/// are good. `mixed` averages checkpoints of different runs all the same (the model keys and the
/// vocabularies must still agree). Nothing is changed unless all check out.
void load_averaged_parameters(const std::vector<std::string>& dirs, const ParameterList& params,
                              bool mixed = false);

/// Runs `read` (which reads the checkpoint `dir`) until no save replaced `dir` while it ran, at
/// most five times: a save swaps a new folder in by a rename, so a folder whose identity (device
/// and inode) changed during the read may have given files of two versions. A CheckpointError
/// thrown while the folder changed is retried too; after five changed reads, CheckpointError says
/// that another run keeps saving there. A reader thus never takes a mixture of two checkpoints.
void read_one_version(const std::string& dir, const std::function<void()>& read);

/// Does the checkpoint in `dir` hold an optimizer state? Throws CheckpointError for an
/// `optimizer` entry without `optimizer/state.txt` (a damaged state, not a checkpoint of weights
/// only).
bool has_optimizer_state(const std::string& dir);

/// Restores `optimizer`'s step count and moments from `dir`; `params` are the parameters the
/// optimizer was built on (their names find the files, their shapes are checked). Refused: a
/// step count above 10^12 (no run comes near it; see checkpoint.cpp), a NaN or infinite moment,
/// a negative second moment (a mean of squares), a state saved with other weights than `params`
/// hold (load the checkpoint's parameters first). Nothing is changed unless everything checks out.
void load_optimizer_state(const std::string& dir, const ParameterList& params, Adam& optimizer);

/// Throws CheckpointError unless `saved` equals `expected`; names the first differing id.
/// `what` says which vocabulary ("source", "target").
void require_same_vocabulary(const Vocabulary& saved, const Vocabulary& expected,
                             const std::string& what);

}  // namespace tfm
