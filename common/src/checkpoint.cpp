#include "tfm/checkpoint.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "tfm/npy.hpp"

namespace tfm {
namespace fs = std::filesystem;
namespace {

std::string parameter_file(const fs::path& dir, const std::string& name) {
  return (dir / "parameters" / (name + ".npy")).string();
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.flush();
  if (!out) throw CheckpointError("could not write '" + path.string() + "'");
}

std::string config_text(const Config& config) {
  std::string text = "# preset " + config.preset + "\n";
  for (const std::string& key : Config::keys()) text += key + "=" + config.get(key) + "\n";
  return text;
}

Config parse_config(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw CheckpointError("missing '" + path.string() + "': not a checkpoint directory?");
  Config config;
  std::set<std::string> seen;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.rfind("# preset ", 0) == 0) {
      config.preset = line.substr(9);
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    try {
      config.set(line);
      seen.insert(line.substr(0, line.find('=')));
    } catch (const std::invalid_argument& e) {
      throw CheckpointError(path.string() + ":" + std::to_string(number) + ": " + e.what());
    }
  }
  for (const std::string& key : Config::keys())
    if (!seen.count(key)) throw CheckpointError(path.string() + ": missing key '" + key + "'");
  try {
    config.validate();
  } catch (const std::invalid_argument& e) {
    throw CheckpointError(path.string() + ": " + e.what());
  }
  return config;
}

NpyArray read_shaped(const std::string& file, const std::vector<std::size_t>& shape,
                     const std::string& what) {
  NpyArray array;
  try {
    array = load_npy_file(file);
  } catch (const NpyError& e) {
    throw CheckpointError(e.what());
  }
  if (array.shape != shape)
    throw CheckpointError("'" + file + "' holds " + what + " of shape " + shape_string(array.shape) +
                          " but the model's is " + shape_string(shape));
  return array;
}

}  // namespace

void save_checkpoint(const std::string& dir, const CheckpointHeader& header,
                     const ParameterList& params, const Adam* optimizer) {
  const fs::path target = fs::absolute(fs::path(dir).lexically_normal());
  if (target.filename().empty()) throw CheckpointError("'" + dir + "' is not a directory name");
  const std::string suffix = "." + std::to_string(::getpid());
  const fs::path staging = target.string() + ".saving" + suffix;
  const fs::path previous = target.string() + ".previous" + suffix;
  try {
    fs::remove_all(staging);
    fs::create_directories(staging / "parameters");
    write_text(staging / "config.txt", config_text(header.config));
    header.src_vocabulary.save((staging / "src_vocabulary.txt").string());
    header.tgt_vocabulary.save((staging / "tgt_vocabulary.txt").string());
    for (const ParameterRef& p : params) save_npy(parameter_file(staging, p.name), p.value, p.shape);
    if (optimizer) {
      fs::create_directories(staging / "optimizer");
      write_text(staging / "optimizer" / "state.txt",
                 "steps=" + std::to_string(optimizer->steps_taken()) + "\n");
      std::size_t i = 0;
      for (const ParameterRef& p : params) {
        save_npy((staging / "optimizer" / (p.name + ".m.npy")).string(), optimizer->first_moment(i).data(), p.shape);
        save_npy((staging / "optimizer" / (p.name + ".v.npy")).string(), optimizer->second_moment(i).data(), p.shape);
        ++i;
      }
    }
    // Swap in the new directory; the old one is removed only once the new one is in place.
    const bool had_previous = fs::exists(target);
    if (had_previous) fs::rename(target, previous);
    fs::rename(staging, target);
    if (had_previous) fs::remove_all(previous);
  } catch (const std::exception& e) {
    std::error_code ignored;
    fs::remove_all(staging, ignored);
    if (!fs::exists(target) && fs::exists(previous)) fs::rename(previous, target, ignored);
    throw CheckpointError("could not save the checkpoint '" + dir + "': " + e.what() +
                          (fs::exists(target) ? " (the previous checkpoint is intact)" : ""));
  }
}

CheckpointHeader read_checkpoint_header(const std::string& dir) {
  const fs::path root(dir);
  if (!fs::is_directory(root)) throw CheckpointError("no checkpoint directory '" + dir + "'");
  Config config = parse_config(root / "config.txt");
  try {
    return {config, Vocabulary::load((root / "src_vocabulary.txt").string()),
            Vocabulary::load((root / "tgt_vocabulary.txt").string())};
  } catch (const VocabularyError& e) {
    throw CheckpointError(e.what());
  }
}

void load_parameters(const std::string& dir, const ParameterList& params) {
  const fs::path root(dir);
  // Read and check everything first, then copy: a bad checkpoint leaves the model untouched.
  std::vector<NpyArray> arrays;
  std::set<std::string> expected;
  for (const ParameterRef& p : params) {
    const std::string file = parameter_file(root, p.name);
    if (!fs::exists(file))
      throw CheckpointError("checkpoint '" + dir + "' has no parameter '" + p.name + "' (missing " + file + ")");
    arrays.push_back(read_shaped(file, p.shape, "parameter '" + p.name + "'"));
    expected.insert(p.name + ".npy");
  }
  for (const auto& entry : fs::directory_iterator(root / "parameters"))
    if (!expected.count(entry.path().filename().string()))
      throw CheckpointError("checkpoint '" + dir + "' has a parameter the model does not: " +
                            entry.path().filename().string());
  std::size_t i = 0;
  for (const ParameterRef& p : params) {
    std::copy(arrays[i].values.begin(), arrays[i].values.end(), p.value);
    ++i;
  }
}

bool has_optimizer_state(const std::string& dir) {
  return fs::exists(fs::path(dir) / "optimizer" / "state.txt");
}

void load_optimizer_state(const std::string& dir, const ParameterList& params, Adam& optimizer) {
  const fs::path root = fs::path(dir) / "optimizer";
  std::ifstream in(root / "state.txt");
  std::string line;
  std::size_t steps = 0;
  if (!std::getline(in, line) || line.rfind("steps=", 0) != 0)
    throw CheckpointError("'" + (root / "state.txt").string() + "' has no 'steps=N' line");
  try {
    steps = std::stoull(line.substr(6));
  } catch (const std::exception&) {
    throw CheckpointError("'" + (root / "state.txt").string() + "': bad step count '" + line + "'");
  }
  std::vector<std::vector<float>> first, second;
  for (const ParameterRef& p : params) {
    first.push_back(read_shaped((root / (p.name + ".m.npy")).string(), p.shape, "a first moment").values);
    second.push_back(read_shaped((root / (p.name + ".v.npy")).string(), p.shape, "a second moment").values);
  }
  optimizer.restore(steps, std::move(first), std::move(second));
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
                   : "sizes differ: " + std::to_string(saved.size()) + " vs " + std::to_string(expected.size());
  }
  throw CheckpointError("the checkpoint's " + what + " vocabulary does not match this task's: " + detail);
}

}  // namespace tfm
