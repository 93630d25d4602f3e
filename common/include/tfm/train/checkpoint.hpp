/// \file checkpoint.hpp
/// \brief Chapter 11: saving and loading a trained model: a directory with the configuration, the
/// vocabularies, one `.npy` file per named parameter and, optionally, the optimizer's state.
///
/// \code
/// DIR/config.txt                       "# preset NAME", key=value for every tfm::Config key, and
///                                      "# model as saved: d_model=... n_heads=..." (the model keys)
/// DIR/src_vocabulary.txt               tfm::Vocabulary::save
/// DIR/tgt_vocabulary.txt
/// DIR/parameters/<name>.npy            float32, e.g. parameters/encoder.layers.0.self_attn.w_q.weight.npy
/// DIR/optimizer/state.txt              steps=N        (only with an optimizer)
/// DIR/optimizer/<name>.m.npy, .v.npy   Adam's first and second moments
/// DIR/extra/<name>                     text files a task keeps with its model (optional), e.g.
///                                      the translation project's tokenizer
/// \endcode
///
/// The parameter names are PyTorch `state_dict` names, so `tools/checkpoint_interop.py` moves a
/// checkpoint into a PyTorch model (and back) by name, with `numpy.load` / `numpy.save`.
///
/// Writing is atomic: everything goes to a fresh directory beside DIR (`DIR.saving.<pid>.<n>`),
/// which then replaces DIR by two renames, so a save that fails (a full disk, a bad name) leaves
/// the previous checkpoint as it was. Were the process killed exactly between the two renames,
/// the previous checkpoint would survive as `DIR.previous.<pid>.<n>`. Such leftovers of a run
/// that was killed are removed by the next save into the same directory
/// (remove_dead_leftovers()), and a read of a missing DIR points at a surviving
/// `DIR.previous.<pid>.<n>`.
///
/// Reading checks everything before changing anything: a missing, extra, truncated or
/// wrongly-shaped parameter, a NaN or an infinity in any tensor, a malformed configuration, one
/// whose model keys differ from the "# model as saved" record (n_heads, which changes no shape),
/// one too large for the machine's memory (tfm::loading_memory), a negative second moment or an
/// impossible step count is a CheckpointError that names the file and the problem, and the
/// model (or optimizer) is left untouched.
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
#include <utility>
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
  /// The header of a model with these vocabularies and (optionally) extra files.
  CheckpointHeader(Config model_config, Vocabulary source, Vocabulary target,
                   std::map<std::string, std::string> files = {})
      : config(std::move(model_config)), src_vocabulary(std::move(source)),
        tgt_vocabulary(std::move(target)), extra_files(std::move(files)) {}

  Config config;              ///< the model's configuration
  Vocabulary src_vocabulary;  ///< what the encoder reads
  Vocabulary tgt_vocabulary;  ///< what the decoder writes
  /// Text files kept with the model, by file name (DIR/extra/<name>): what a task needs to turn
  /// text into the vocabulary's symbols the way it was trained, e.g. a subword tokenizer.
  std::map<std::string, std::string> extra_files;
};

/// Writes a checkpoint of `params` (and of `optimizer`'s state, unless null) to `dir`, atomically.
/// `dir` may already hold a checkpoint, which is replaced; any other existing file or non-empty
/// directory is refused (a typo must not delete a folder). Also refused, before anything is
/// written: a vocabulary larger than the configuration's vocabulary size, and a parameter or
/// extra file name that cannot be a file name (empty, starting with '.', containing '/') or a
/// parameter registered twice.
void save_checkpoint(const std::string& dir, const CheckpointHeader& header,
                     const ParameterList& params, const Adam* optimizer = nullptr);

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

/// Throws CheckpointError naming the problem if save_checkpoint could not write to `dir`: a file
/// or a non-empty directory that holds no checkpoint, or a parent that is missing, not a
/// directory, or not writable. Lets a program refuse a bad `--save` before training, not after.
void check_checkpoint_destination(const std::string& dir);

/// Reads the configuration, vocabularies and extra files of the checkpoint in `dir`. An unknown, repeated or
/// malformed configuration line is a CheckpointError naming the file and the line, and so is a
/// missing key that defines the network (sizes, layers, heads, biases, shared embedding,
/// max_len). A missing training key (a checkpoint written before the key existed) keeps
/// Config's default. A configuration that would need more memory than the machine has
/// (require_memory(loading_memory(config))) is refused with the estimate, before any tensor of
/// it exists.
CheckpointHeader read_checkpoint_header(const std::string& dir);

/// The reader of config.txt on its text: `name` names the file in the messages. Checks every
/// line (key=value of a known key, each once, finite numbers), that every model key is there,
/// Config::validate(), and that the model keys equal the "# model as saved:" record when the
/// file has one. Throws CheckpointError naming the file, the line and the key. For
/// read_checkpoint_header and the fuzz target.
Config parse_checkpoint_config(const std::string& text, const std::string& name);

/// Removes what saves killed earlier left in the directory that holds `dir`. These are
/// `NAME.saving.<pid>.<n>` and `NAME.previous.<pid>.<n>` beside any checkpoint NAME that is in
/// place (`dir` itself, or the step checkpoints --save-every writes beside it). Only exactly so
/// named, real directories (not symbolic links) that hold nothing but checkpoint files, of a
/// `pid` for which `kill(pid, 0)` fails with ESRCH. Without NAME in place nothing of it is
/// removed: a `.previous` copy is then the only copy. Returns the removed paths.
/// save_checkpoint() calls it before writing and after the swap; a program may call it at start.
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
/// configuration and the vocabularies of the first. Nothing is changed unless all check out.
void load_averaged_parameters(const std::vector<std::string>& dirs, const ParameterList& params);

/// Does the checkpoint in `dir` hold an optimizer state?
bool has_optimizer_state(const std::string& dir);

/// Restores `optimizer`'s step count and moments from `dir`; `params` are the parameters the
/// optimizer was built on (their names find the files, their shapes are checked). Refused: a
/// step count above 10^12 (no run comes near it; see checkpoint.cpp), a NaN or infinite moment,
/// a negative second moment (a mean of squares). Nothing is changed unless everything checks out.
void load_optimizer_state(const std::string& dir, const ParameterList& params, Adam& optimizer);

/// Throws CheckpointError unless `saved` equals `expected`; names the first differing id.
/// `what` says which vocabulary ("source", "target").
void require_same_vocabulary(const Vocabulary& saved, const Vocabulary& expected,
                             const std::string& what);

}  // namespace tfm
