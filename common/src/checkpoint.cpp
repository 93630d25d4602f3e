#include "tfm/checkpoint.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>
#include <utility>

#include "tfm/npy.hpp"

namespace tfm {
namespace fs = std::filesystem;
namespace {

// ---- the files of a checkpoint ------------------------------------------------------------

fs::path parameter_file(const fs::path& dir, const std::string& name) {
  return dir / "parameters" / (name + ".npy");
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw CheckpointError("could not write '" + path.string() + "'");
}

// ---- config.txt ---------------------------------------------------------------------------

std::string config_text(const Config& config) {
  std::string text = "# preset " + config.preset + "\n";
  for (const std::string& key : Config::keys()) text += key + "=" + config.get(key) + "\n";
  return text;
}

// The keys that define the network. They must be in every checkpoint: a default would build
// another model (n_heads, say, changes no parameter's shape, so load_parameters cannot notice).
// The other keys only steer training; one missing from config.txt (written before the key
// existed) takes Config's default.
const std::set<std::string>& model_keys() {
  static const std::set<std::string> keys = {
      "src_vocab_size", "tgt_vocab_size", "d_model", "n_heads", "n_encoder_layers", "n_decoder_layers",
      "d_ff", "attention_bias", "linear_bias", "shared_embedding", "max_len"};
  return keys;
}

// No key may appear twice, and every model key must appear.
Config parse_config(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw CheckpointError("missing '" + path.string() + "': not a checkpoint directory?");
  Config config;
  std::set<std::string> seen;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind("# preset ", 0) == 0) {
      config.preset = line.substr(9);
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    const std::string where = path.string() + ", line " + std::to_string(number) + ": ";
    const auto eq = line.find('=');
    if (eq == std::string::npos || eq == 0)
      throw CheckpointError(where + "expected key=value, got '" + line + "'");
    const std::string key = line.substr(0, eq);
    try {
      config.set(key, line.substr(eq + 1));
    } catch (const std::invalid_argument& e) {
      throw CheckpointError(where + e.what());
    }
    if (!seen.insert(key).second) throw CheckpointError(where + "key '" + key + "' is set twice");
  }
  for (const std::string& key : model_keys())
    if (!seen.count(key)) throw CheckpointError(path.string() + ": missing key '" + key + "'");
  try {
    config.validate();
  } catch (const std::invalid_argument& e) {
    throw CheckpointError(path.string() + ": " + e.what());
  }
  return config;
}

// A vocabulary with more symbols than the model has embedding rows would produce ids the model
// cannot look up. (Fewer is fine: the extra rows are never used.) Returns "" or the problem.
std::string vocabulary_problem(const CheckpointHeader& header) {
  const auto check = [](const Vocabulary& vocabulary, std::size_t size, const std::string& side,
                        const std::string& key) {
    return vocabulary.size() <= size ? std::string()
                                     : "the " + side + " vocabulary has " + std::to_string(vocabulary.size()) +
                                           " symbols but the model's " + key + " is " + std::to_string(size);
  };
  const std::string src = check(header.src_vocabulary, header.config.src_vocab_size, "source", "src_vocab_size");
  return src.empty() ? check(header.tgt_vocabulary, header.config.tgt_vocab_size, "target", "tgt_vocab_size")
                     : src;
}

// ---- .npy files of a given shape ----------------------------------------------------------

NpyArray read_shaped(const fs::path& file, const std::vector<std::size_t>& shape, const std::string& what) {
  NpyArray array;
  try {
    array = load_npy_file(file.string());
  } catch (const NpyError& e) {
    throw CheckpointError(std::string(e.what()) + " (" + what + ")");
  }
  if (array.shape != shape)
    throw CheckpointError("'" + file.string() + "' holds " + what + " of shape " + shape_string(array.shape) +
                          " but the model's is " + shape_string(shape));
  return array;
}

// Throws naming the first file of `folder` that is not in `expected`.
void require_no_other_files(const fs::path& folder, const std::set<std::string>& expected,
                            const std::string& message) {
  for (const auto& entry : fs::directory_iterator(folder))
    if (!expected.count(entry.path().filename().string()))
      throw CheckpointError(message + " '" + entry.path().string() + "'");
}

// A parameter name becomes a file name, so it must not be able to leave parameters/.
// Returns "" or the problem.
std::string parameter_name_problem(const ParameterList& params) {
  std::set<std::string> seen;
  for (const ParameterRef& p : params) {
    if (p.name.empty() || p.name[0] == '.' || p.name.find('/') != std::string::npos)
      return "the parameter name '" + p.name + "' cannot be a file name (it is empty, starts with '.' or contains '/')";
    if (!seen.insert(p.name).second) return "the parameter '" + p.name + "' is registered twice";
  }
  return "";
}

// Where the checkpoint goes: an absolute path without a trailing '/', so that "DIR.saving" is
// a sibling of DIR (and not a file inside it).
fs::path target_path(const std::string& dir) {
  if (dir.empty()) throw CheckpointError("the checkpoint directory's name is empty");
  fs::path path = fs::absolute(fs::path(dir)).lexically_normal();
  if (!path.has_filename()) path = path.parent_path();
  if (path == path.root_path()) throw CheckpointError("'" + dir + "' cannot be a checkpoint directory");
  return path;
}

// Why `target` cannot receive a checkpoint, or "" if it can: it must be a new name, an empty
// directory or an earlier checkpoint, in a directory that exists and may be written to.
std::string destination_problem(const fs::path& target) {
  if (fs::exists(target) && !fs::is_directory(target)) return "it exists and is not a directory";
  if (fs::is_directory(target) && !fs::exists(target / "config.txt") && !fs::is_empty(target))
    return "it is a directory that holds no checkpoint (no config.txt); it will not be replaced";
  const fs::path parent = target.parent_path();
  if (!fs::is_directory(parent)) return "its parent '" + parent.string() + "' is not a directory";
  if (::access(parent.c_str(), W_OK | X_OK) != 0)
    return "its parent '" + parent.string() + "' cannot be written to";
  return "";
}

}  // namespace

std::function<std::string(std::size_t step)> periodic_checkpoints(const std::string& prefix,
                                                                  const CheckpointHeader& header,
                                                                  const ParameterList& params,
                                                                  const Adam& optimizer) {
  return [prefix, header, &params, &optimizer](std::size_t step) {
    const std::string dir = prefix + "-step" + std::to_string(step);
    try {
      save_checkpoint(dir, header, params, &optimizer);
    } catch (const CheckpointError& e) {
      return std::string("warning: ") + e.what() + "; training goes on";
    }
    return "saved " + dir;
  };
}

void save_checkpoint_or_rescue(const std::string& dir, const std::string& rescue_dir,
                               const CheckpointHeader& header, const ParameterList& params,
                               const Adam* optimizer) {
  try {
    save_checkpoint(dir, header, params, optimizer);
  } catch (const CheckpointError& e) {
    try {
      save_checkpoint(rescue_dir, header, params, optimizer);
    } catch (const CheckpointError& rescue_error) {
      throw CheckpointError(std::string(e.what()) + "; saving to '" + rescue_dir +
                            "' instead failed too: " + rescue_error.what());
    }
    throw CheckpointError(std::string(e.what()) + "; the model was saved to '" + rescue_dir +
                          "' instead");
  }
}

void check_checkpoint_destination(const std::string& dir) {
  if (const std::string problem = destination_problem(target_path(dir)); !problem.empty())
    throw CheckpointError("cannot save a checkpoint to '" + dir + "': " + problem);
}

// [checkpoint save]
void save_checkpoint(const std::string& dir, const CheckpointHeader& header,
                     const ParameterList& params, const Adam* optimizer) {
  const auto refuse = [&](const std::string& why) {
    return CheckpointError("cannot save the checkpoint '" + dir + "': " + why + " (nothing was written)");
  };
  // Everything that can be checked beforehand is checked before a single byte is written.
  const fs::path target = target_path(dir);
  try {
    header.config.validate();  // what read_checkpoint_header would refuse to read back
  } catch (const std::invalid_argument& e) {
    throw refuse(e.what());
  }
  if (const std::string problem = parameter_name_problem(params); !problem.empty()) throw refuse(problem);
  if (const std::string problem = vocabulary_problem(header); !problem.empty()) throw refuse(problem);
  if (const std::string problem = destination_problem(target); !problem.empty()) throw refuse(problem);
  if (optimizer) {
    try {  // first_moment(i) throws std::out_of_range past the optimizer's last parameter
      std::size_t i = 0;
      for (const ParameterRef& p : params)
        if (optimizer->first_moment(i++).size() != p.size) throw std::out_of_range(p.name);
    } catch (const std::out_of_range&) {
      throw refuse("the optimizer was not built on these parameters");
    }
  }

  // Write everything into a fresh directory beside the target...
  static std::atomic<unsigned> saves{0};
  const std::string suffix = "." + std::to_string(::getpid()) + "." + std::to_string(saves++);
  const fs::path staging = target.string() + ".saving" + suffix;
  const fs::path previous = target.string() + ".previous" + suffix;
  try {
    fs::remove_all(staging);
    fs::create_directories(staging / "parameters");
    write_text(staging / "config.txt", config_text(header.config));
    header.src_vocabulary.save((staging / "src_vocabulary.txt").string());
    header.tgt_vocabulary.save((staging / "tgt_vocabulary.txt").string());
    for (const ParameterRef& p : params) save_npy(parameter_file(staging, p.name).string(), p.value, p.shape);
    if (optimizer) {
      fs::create_directories(staging / "optimizer");
      write_text(staging / "optimizer" / "state.txt", "steps=" + std::to_string(optimizer->steps_taken()) + "\n");
      std::size_t i = 0;
      for (const ParameterRef& p : params) {
        save_npy((staging / "optimizer" / (p.name + ".m.npy")).string(), optimizer->first_moment(i).data(), p.shape);
        save_npy((staging / "optimizer" / (p.name + ".v.npy")).string(), optimizer->second_moment(i).data(), p.shape);
        ++i;
      }
    }
    // ...then swap it in. The old checkpoint is deleted only once the new one is in place.
    const bool replacing = fs::exists(target);
    if (replacing) fs::rename(target, previous);
    fs::rename(staging, target);
    if (replacing) {
      std::error_code ignored;  // the save has succeeded; a leftover old copy is only clutter
      fs::remove_all(previous, ignored);
    }
  } catch (const std::exception& e) {
    std::error_code ignored;
    fs::remove_all(staging, ignored);
    if (!fs::exists(target) && fs::exists(previous)) fs::rename(previous, target, ignored);
    throw CheckpointError("could not save the checkpoint '" + dir + "': " + e.what() +
                          (fs::exists(target) ? " (the previous checkpoint is intact)" : " (nothing was saved)"));
  }
}
// [checkpoint save]

CheckpointHeader read_checkpoint_header(const std::string& dir) {
  const fs::path root(dir);
  if (!fs::is_directory(root)) throw CheckpointError("no checkpoint directory '" + dir + "'");
  const Config config = parse_config(root / "config.txt");
  try {
    CheckpointHeader header{config, Vocabulary::load((root / "src_vocabulary.txt").string()),
                            Vocabulary::load((root / "tgt_vocabulary.txt").string())};
    if (const std::string problem = vocabulary_problem(header); !problem.empty())
      throw CheckpointError("checkpoint '" + dir + "': " + problem);
    return header;
  } catch (const VocabularyError& e) {
    throw CheckpointError(e.what());
  }
}

// [checkpoint load]
namespace {

// Every parameter of `params` as saved in `dir`, each checked against its shape, in the order
// of `params`; nothing else may be in parameters/.
std::vector<NpyArray> read_parameters(const std::string& dir, const ParameterList& params) {
  const fs::path root(dir);
  if (!fs::is_directory(root)) throw CheckpointError("no checkpoint directory '" + dir + "'");
  if (!fs::is_directory(root / "parameters"))
    throw CheckpointError("checkpoint '" + dir + "' has no parameters/ directory");
  std::vector<NpyArray> arrays;
  std::set<std::string> expected;
  for (const ParameterRef& p : params) {
    const fs::path file = parameter_file(root, p.name);
    if (!fs::exists(file))
      throw CheckpointError("checkpoint '" + dir + "' has no parameter '" + p.name + "' (no file '" +
                            file.string() + "'); was it saved from another configuration?");
    arrays.push_back(read_shaped(file, p.shape, "parameter '" + p.name + "'"));
    expected.insert(file.filename().string());
  }
  require_no_other_files(root / "parameters", expected,
                         "checkpoint '" + dir + "' has a parameter the model does not have:");
  return arrays;
}

}  // namespace

void load_parameters(const std::string& dir, const ParameterList& params) {
  // Read and check everything first, then copy: a bad checkpoint leaves the model untouched.
  const std::vector<NpyArray> arrays = read_parameters(dir, params);
  std::size_t i = 0;
  for (const ParameterRef& p : params) {
    std::copy(arrays[i].values.begin(), arrays[i].values.end(), p.value);
    ++i;
  }
}
// [checkpoint load]

// [checkpoint average]
void load_averaged_parameters(const std::vector<std::string>& dirs, const ParameterList& params) {
  if (dirs.empty()) throw CheckpointError("checkpoint averaging needs at least one checkpoint");
  // Averaging only makes sense between snapshots of one network: same model keys (n_heads
  // changes no shape, so the shapes alone cannot tell), same vocabularies.
  const CheckpointHeader first = read_checkpoint_header(dirs.front());
  std::vector<std::vector<NpyArray>> snapshots;
  for (const std::string& dir : dirs) {
    const CheckpointHeader header = read_checkpoint_header(dir);
    for (const std::string& key : model_keys())
      if (header.config.get(key) != first.config.get(key))
        throw CheckpointError("cannot average '" + dirs.front() + "' and '" + dir + "': " + key + " is " +
                              first.config.get(key) + " in one and " + header.config.get(key) +
                              " in the other");
    if (header.src_vocabulary != first.src_vocabulary || header.tgt_vocabulary != first.tgt_vocabulary)
      throw CheckpointError("cannot average '" + dirs.front() + "' and '" + dir +
                            "': their vocabularies differ");
    snapshots.push_back(read_parameters(dir, params));
  }
  // All read and checked: now the mean, entry by entry, in double so the order of the
  // checkpoints does not matter to the last bit.
  std::size_t i = 0;
  for (const ParameterRef& p : params) {
    for (std::size_t k = 0; k < p.size; ++k) {
      double sum = 0.0;
      for (const auto& arrays : snapshots) sum += arrays[i].values[k];
      p.value[k] = static_cast<float>(sum / static_cast<double>(snapshots.size()));
    }
    ++i;
  }
}
// [checkpoint average]

bool has_optimizer_state(const std::string& dir) {
  return fs::is_regular_file(fs::path(dir) / "optimizer" / "state.txt");
}

void load_optimizer_state(const std::string& dir, const ParameterList& params, Adam& optimizer) {
  const fs::path folder = fs::path(dir) / "optimizer";
  const fs::path state = folder / "state.txt";
  if (!fs::is_regular_file(state))
    throw CheckpointError("checkpoint '" + dir + "' holds no optimizer state (no file '" + state.string() + "')");
  std::ifstream in(state);
  std::string line;
  std::getline(in, line);
  const std::string digits = line.rfind("steps=", 0) == 0 ? line.substr(6) : "";
  if (digits.empty() || digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string::npos)
    throw CheckpointError("'" + state.string() + "': expected 'steps=N' on the first line, got '" + line + "'");
  const std::size_t steps = std::stoull(digits);

  std::vector<std::vector<float>> first, second;
  std::set<std::string> expected = {"state.txt"};
  for (const ParameterRef& p : params) {
    for (const char* moment : {".m.npy", ".v.npy"}) {
      const fs::path file = folder / (p.name + moment);
      const NpyArray array = read_shaped(file, p.shape, std::string(moment[1] == 'm' ? "the first" : "the second") +
                                                            " moment of '" + p.name + "'");
      (moment[1] == 'm' ? first : second).push_back(array.values);
      expected.insert(file.filename().string());
    }
  }
  require_no_other_files(folder, expected, "checkpoint '" + dir + "' has an optimizer state the model does not:");
  try {
    optimizer.restore(steps, std::move(first), std::move(second));
  } catch (const std::invalid_argument& e) {
    throw CheckpointError("checkpoint '" + dir + "': " + e.what());
  }
}

void require_same_vocabulary(const Vocabulary& saved, const Vocabulary& expected,
                             const std::string& what) {
  if (saved == expected) return;
  std::string detail;
  if (saved.tokenization() != expected.tokenization()) {
    detail = "one splits characters, the other words";
  } else {
    const std::size_t n = std::min(saved.size(), expected.size());
    std::size_t i = 0;
    while (i < n && saved.symbols()[i] == expected.symbols()[i]) ++i;
    detail = i < n ? "id " + std::to_string(i) + " is '" + saved.symbols()[i] + "' in the checkpoint but '" +
                         expected.symbols()[i] + "' here"
                   : "sizes differ: " + std::to_string(saved.size()) + " in the checkpoint vs " +
                         std::to_string(expected.size()) + " here";
  }
  throw CheckpointError("the checkpoint's " + what + " vocabulary does not match this task's: " + detail);
}

}  // namespace tfm
