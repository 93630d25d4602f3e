/// \file checkpoint_config.hpp
/// \brief Machinery (not a lesson): a checkpoint's `config.txt` — every tfm::Config key as key=value, and the
/// model keys once more as a record of how the model was saved.
///
/// \code
/// # preset vowels-small
/// # run 5f0c2a9e1b7d4c36                (the training run it comes from; see CheckpointHeader::run)
/// src_vocab_size=32
/// ...
/// # model as saved: src_vocab_size=32 tgt_vocab_size=32 d_model=128 n_heads=4 ...
/// \endcode
///
/// n_heads and max_len change no tensor's shape, so an edit of config.txt that changed them would
/// load the weights into a model they were not trained for, without a word; the last line lets
/// the reader notice and name the key. A file without that line (older, or exported from PyTorch)
/// is read as before.
#pragma once

#include <set>
#include <string>

#include "tfm/model/config.hpp"

namespace tfm {

/// The keys that define the network. They must be in every checkpoint: a default would build
/// another model (n_heads, say, changes no parameter's shape, so load_parameters cannot notice).
/// The other keys only steer training; one missing from config.txt (written before the key
/// existed) takes Config's default.
const std::set<std::string>& checkpoint_model_keys();

/// The text of config.txt for `config`, saved by the training run `run` ("" for none).
std::string checkpoint_config_text(const Config& config, const std::string& run = "");

/// The training run a config.txt's text names on its "# run ID" line, or "" (a checkpoint saved
/// before the line existed, or exported from PyTorch).
std::string checkpoint_run(const std::string& text);

/// The reader of config.txt on its text: `name` names the file in the messages. Checks every
/// line (key=value of a known key, each once, finite numbers), that every model key is there,
/// Config::validate(), and that the model keys equal the "# model as saved:" record when the
/// file has one. Throws CheckpointError naming the file, the line and the key. For
/// read_checkpoint_header and the fuzz target.
Config parse_checkpoint_config(const std::string& text, const std::string& name);

/// parse_checkpoint_config on the file `path`; a missing file, or one of megabytes (a
/// configuration has about 500 bytes), is a CheckpointError naming it.
Config read_checkpoint_config(const std::string& path);

}  // namespace tfm
