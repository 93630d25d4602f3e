#include "tfm/machinery/checkpoint.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <random>
#include <set>
#include <sstream>
#include <utility>

#include "tfm/engine/fnv1a.hpp"
#include "tfm/machinery/checkpoint_config.hpp"
#include "tfm/machinery/memory_estimate.hpp"
#include "tfm/machinery/npy.hpp"
#include "tfm/machinery/safe_directory.hpp"
#include "tfm/support/text_file.hpp"

namespace tfm {
namespace fs = std::filesystem;
namespace {

// What a checkpoint directory holds: only such directories are replaced, or removed as leftovers.
const DirectoryContents kContents = {
    "checkpoint",
    "config.txt",
    {"config.txt", "src_vocabulary.txt", "tgt_vocabulary.txt", "parameters", "optimizer", "files"}};

// ---- the files of a checkpoint ------------------------------------------------------------

fs::path parameter_file(const fs::path& dir, const std::string& name) {
  return dir / "parameters" / (name + ".npy");
}

// The most steps a saved Adam state may claim: 10^12. No run of this program comes near it (the
// smallest model takes well over 10 microseconds a step on any CPU, so 10^12 steps would be more
// than four months of training), while a corrupted or edited count is typically far larger
// (999999999999999999); Adam's bias corrections 1 - beta^t are exactly 1 in float long before
// either, so the bound loses nothing a real run could have.
constexpr std::size_t kMaxSteps = 1000000000000;

// A vocabulary with more symbols than the model has embedding rows would produce ids the model
// cannot look up. (Fewer is fine: the extra rows are never used.) Returns "" or the problem.
std::string vocabulary_problem(const CheckpointHeader& header) {
  const auto check = [](const Vocabulary& vocabulary, std::size_t size, const std::string& side,
                        const std::string& key) {
    return vocabulary.size() <= size
               ? std::string()
               : "the " + side + " vocabulary has " + std::to_string(vocabulary.size()) +
                     " symbols but the model's " + key + " is " + std::to_string(size);
  };
  const std::string src =
      check(header.src_vocabulary, header.config.src_vocab_size, "source", "src_vocab_size");
  return src.empty() ? check(header.tgt_vocabulary, header.config.tgt_vocab_size, "target",
                             "tgt_vocab_size")
                     : src;
}

// A parameter name or an extra file's name becomes a file name: it must not be able to leave its
// folder. Returns "" or the problem.
std::string file_name_problem(const std::string& name, const std::string& what) {
  if (name.empty() || name[0] == '.' || name.find('/') != std::string::npos ||
      name.find('\0') != std::string::npos) {
    std::string shown;  // a zero byte would end the message
    for (const char c : name) shown += c == '\0' ? std::string("\\0") : std::string(1, c);
    return "the " + what + " name '" + shown +
           "' cannot be a file name (it is empty, starts with '.', contains '/' or a zero byte)";
  }
  return "";
}

std::string parameter_name_problem(const ParameterList& params) {
  std::set<std::string> seen;
  for (const ParameterRef& p : params) {
    if (const std::string problem = file_name_problem(p.name, "parameter"); !problem.empty())
      return problem;
    if (!seen.insert(p.name).second) return "the parameter '" + p.name + "' is registered twice";
  }
  return "";
}

std::string extra_files_problem(const CheckpointHeader& header) {
  for (const auto& [name, bytes] : header.files)
    if (const std::string problem = file_name_problem(name, "extra file"); !problem.empty())
      return problem;
  return "";
}

// The weights an optimizer state belongs to, as 16 hex digits (64-bit FNV-1a of every parameter's
// bytes in registration order): an optimizer folder copied from another run is refused.
std::string weights_fingerprint(const ParameterList& params) {
  Fnv1a hash;
  for (const ParameterRef& p : params) hash.add(p.value, p.size * sizeof(float));
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash.value()));
  return text;
}

// The extra files of files/, name -> bytes (none for a checkpoint that has no files/).
std::map<std::string, std::string> read_files(const fs::path& root) {
  std::map<std::string, std::string> files;
  const fs::path folder = root / "files";
  if (!fs::exists(folder)) return files;
  if (!fs::is_directory(folder))
    throw CheckpointError("'" + folder.string() + "' is not a directory");
  for (const auto& entry : fs::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || !file_name_problem(name, "extra file").empty())
      throw CheckpointError("'" + entry.path().string() +
                            "' is not an extra file of a checkpoint (a plain file)");
    if (entry.file_size() > kMaxCheckpointFileBytes)
      throw CheckpointError(
          "'" + entry.path().string() + "' has " + std::to_string(entry.file_size()) +
          " bytes, more than an extra file may (" + std::to_string(kMaxCheckpointFileBytes) + ")");
    try {
      files.emplace(
          name, read_whole_file(entry.path().string(), "checkpoint file", kMaxCheckpointFileBytes));
    } catch (const std::runtime_error& e) {
      throw CheckpointError(e.what());
    }
  }
  return files;
}

// ---- .npy files of a given shape ----------------------------------------------------------

NpyArray read_shaped(const fs::path& file, const std::vector<std::size_t>& shape,
                     const std::string& what) {
  NpyArray array;
  try {
    array = load_npy_file(file.string());
  } catch (const NpyError& e) {
    throw CheckpointError(std::string(e.what()) + " (" + what + ")");
  }
  if (array.shape != shape)
    throw CheckpointError("'" + file.string() + "' holds " + what + " of shape " +
                          shape_string(array.shape) + " but the model's is " + shape_string(shape));
  // Every tensor of a checkpoint passes here: weights, averaged snapshots, Adam's moments.
  try {
    require_finite(array, file.string());
  } catch (const NpyError& e) {
    throw CheckpointError(
        std::string(e.what()) + " (" + what +
        "; a checkpoint holds only finite numbers: did training diverge before the save?)");
  }
  return array;
}

// Throws naming the first file of `folder` that is not in `expected`.
void require_no_other_files(const fs::path& folder, const std::set<std::string>& expected,
                            const std::string& message) {
  for (const auto& entry : fs::directory_iterator(folder))
    if (!expected.count(entry.path().filename().string()))
      throw CheckpointError(message + " '" + entry.path().string() + "'");
}

}  // namespace

void check_checkpoint_destination(const std::string& dir, bool step_checkpoints) {
  try {
    const fs::path target = directory_target(dir, kContents);
    std::string problem = destination_problem(target, kContents);
    // DIR-step<S>, S of up to 20 digits, and what a write adds to that.
    if (problem.empty() && step_checkpoints)
      problem = name_length_problem(target, sizeof("-step") - 1 + 20 + kLongestWriteSuffix);
    if (!problem.empty())
      throw CheckpointError("cannot save a checkpoint to '" + dir + "': " + problem);
  } catch (const SafeDirectoryError& e) {
    throw CheckpointError(e.what());
  }
}

std::vector<std::string> remove_dead_leftovers(const std::string& dir) {
  try {
    return remove_dead_leftovers(dir, kContents);
  } catch (const SafeDirectoryError& e) {
    throw CheckpointError(e.what());
  }
}

void save_checkpoint(const std::string& dir, const CheckpointHeader& header,
                     const ParameterList& params, const Adam* optimizer) {
  params.verify("save_checkpoint");
  const auto refuse = [&](const std::string& why) {
    return CheckpointError("cannot save the checkpoint '" + dir + "': " + why +
                           " (nothing was written)");
  };
  // Everything that can be checked beforehand is checked before a single byte is written.
  fs::path target;
  try {
    target = directory_target(dir, kContents);
    header.config.validate();  // what read_checkpoint_header would refuse to read back
  } catch (const std::exception& e) {
    throw refuse(e.what());
  }
  for (const std::string& problem :
       {parameter_name_problem(params), vocabulary_problem(header), extra_files_problem(header),
        destination_problem(target, kContents)})
    if (!problem.empty()) throw refuse(problem);
  if (optimizer) {
    try {  // first_moment(i) throws std::out_of_range past the optimizer's last parameter
      std::size_t i = 0;
      for (const ParameterRef& p : params)
        if (optimizer->first_moment(i++).size() != p.size) throw std::out_of_range(p.name);
    } catch (const std::out_of_range&) {
      throw refuse("the optimizer was not built on these parameters");
    }
  }
  try {
    replace_directory(target, kContents, [&](const fs::path& staging) {
      fs::create_directories(staging / "parameters");
      write_text_file((staging / "config.txt").string(),
                      checkpoint_config_text(header.config, header.run));
      header.src_vocabulary.save((staging / "src_vocabulary.txt").string());
      header.tgt_vocabulary.save((staging / "tgt_vocabulary.txt").string());
      for (const ParameterRef& p : params)
        save_npy(parameter_file(staging, p.name).string(), p.value, p.shape);
      if (optimizer) {
        fs::create_directories(staging / "optimizer");
        write_text_file((staging / "optimizer" / "state.txt").string(),
                        "steps=" + std::to_string(optimizer->steps_taken()) +
                            "\nweights=" + weights_fingerprint(params) + "\n");
        std::size_t i = 0;
        for (const ParameterRef& p : params) {
          save_npy((staging / "optimizer" / (p.name + ".m.npy")).string(),
                   optimizer->first_moment(i).data(), p.shape);
          save_npy((staging / "optimizer" / (p.name + ".v.npy")).string(),
                   optimizer->second_moment(i).data(), p.shape);
          ++i;
        }
      }
      if (!header.files.empty()) fs::create_directories(staging / "files");
      for (const auto& [name, bytes] : header.files)
        write_text_file((staging / "files" / name).string(), bytes);
    });
  } catch (const SafeDirectoryError& e) {
    throw CheckpointError("could not save the checkpoint '" + dir + "': " + e.what());
  }
}

CheckpointHeader read_checkpoint_header(const std::string& dir) {
  const fs::path root(dir);
  if (!fs::is_directory(root))
    throw CheckpointError("no checkpoint directory '" + dir + "'" +
                          killed_write_hint(dir, kContents));
  const Config config = read_checkpoint_config((root / "config.txt").string());
  // A valid configuration can still be one no machine holds (d_model=4000000000): refuse it
  // now, with the estimate, before anyone builds the model (which would end in std::bad_alloc).
  try {
    require_memory(loading_memory(config));
  } catch (const MemoryError& e) {
    throw CheckpointError("'" + (root / "config.txt").string() + "': " + e.what());
  }
  try {
    CheckpointHeader header{config, Vocabulary::load((root / "src_vocabulary.txt").string()),
                            Vocabulary::load((root / "tgt_vocabulary.txt").string()),
                            read_files(root)};
    try {
      header.run = checkpoint_run(
          read_whole_file((root / "config.txt").string(), "checkpoint configuration", 1u << 20));
    } catch (const std::runtime_error& e) {
      throw CheckpointError(e.what());
    }
    if (const std::string problem = vocabulary_problem(header); !problem.empty())
      throw CheckpointError("checkpoint '" + dir + "': " + problem);
    return header;
  } catch (const VocabularyError& e) {
    throw CheckpointError(e.what());
  }
}

namespace {

// The folder's device and inode, or (0, 0) when it cannot be had (missing).
std::pair<dev_t, ino_t> folder_identity(const std::string& dir) {
  struct stat status {};
  if (::stat(dir.c_str(), &status) != 0) return {0, 0};
  return {status.st_dev, status.st_ino};
}

}  // namespace

void read_one_version(const std::string& dir, const std::function<void()>& read) {
  constexpr int kAttempts = 5;
  for (int attempt = 1;; ++attempt) {
    const auto before = folder_identity(dir);
    try {
      read();
    } catch (const CheckpointError&) {
      if (attempt < kAttempts && folder_identity(dir) != before) continue;  // replaced meanwhile
      throw;
    } catch (const fs::filesystem_error& e) {  // a folder listed as it was being replaced
      if (attempt < kAttempts && folder_identity(dir) != before) continue;
      throw CheckpointError("cannot read checkpoint '" + dir + "': " + e.what());
    }
    if (folder_identity(dir) == before) return;
    if (attempt == kAttempts)
      throw CheckpointError("checkpoint '" + dir + "' was replaced " + std::to_string(kAttempts) +
                            " times while it was read: another run keeps saving there; load it "
                            "once that run has ended");
  }
}

namespace {

// Every parameter of `params` as saved in `dir`, each checked against its shape, in the order
// of `params`; nothing else may be in parameters/.
std::vector<NpyArray> read_parameters(const std::string& dir, const ParameterList& params) {
  const fs::path root(dir);
  if (!fs::is_directory(root))
    throw CheckpointError("no checkpoint directory '" + dir + "'" +
                          killed_write_hint(dir, kContents));
  if (!fs::is_directory(root / "parameters"))
    throw CheckpointError("checkpoint '" + dir + "' has no parameters/ directory");
  std::vector<NpyArray> arrays;
  std::set<std::string> expected;
  for (const ParameterRef& p : params) {
    const fs::path file = parameter_file(root, p.name);
    if (!fs::exists(file))
      throw CheckpointError("checkpoint '" + dir + "' has no parameter '" + p.name +
                            "' (no file '" + file.string() +
                            "'); was it saved from another configuration?");
    arrays.push_back(read_shaped(file, p.shape, "parameter '" + p.name + "'"));
    expected.insert(file.filename().string());
  }
  require_no_other_files(root / "parameters", expected,
                         "checkpoint '" + dir + "' has a parameter the model does not have:");
  return arrays;
}

}  // namespace

void load_parameters(const std::string& dir, const ParameterList& params) {
  params.verify("load_parameters");
  // Read and check everything first, then copy: a bad checkpoint leaves the model untouched.
  std::vector<NpyArray> arrays;
  read_one_version(dir, [&] { arrays = read_parameters(dir, params); });
  std::size_t i = 0;
  for (const ParameterRef& p : params) {
    std::copy(arrays[i].values.begin(), arrays[i].values.end(), p.value);
    ++i;
  }
}

std::string new_run_id() {
  std::random_device random;
  const std::uint64_t id = (std::uint64_t{random()} << 32) ^ random();
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(id));
  return text;
}

void load_averaged_parameters(const std::vector<std::string>& dirs, const ParameterList& params,
                              bool mixed) {
  if (dirs.empty()) throw CheckpointError("checkpoint averaging needs at least one checkpoint");
  // Averaging only makes sense between snapshots of one network: same model keys (n_heads
  // changes no shape, so the shapes alone cannot tell), same vocabularies.
  const CheckpointHeader first = read_checkpoint_header(dirs.front());
  std::vector<std::vector<NpyArray>> snapshots;
  for (const std::string& dir : dirs) {
    const CheckpointHeader header = read_checkpoint_header(dir);
    for (const std::string& key : checkpoint_model_keys())
      if (header.config.get(key) != first.config.get(key))
        throw CheckpointError("cannot average '" + dirs.front() + "' and '" + dir + "': " + key +
                              " is " + first.config.get(key) + " in one and " +
                              header.config.get(key) + " in the other");
    if (header.src_vocabulary != first.src_vocabulary ||
        header.tgt_vocabulary != first.tgt_vocabulary)
      throw CheckpointError("cannot average '" + dirs.front() + "' and '" + dir +
                            "': their vocabularies differ");
    if (!mixed) {  // one run's snapshots only: the mean of two runs is a model of neither
      const auto refuse = [&](const std::string& what) {
        return CheckpointError("cannot average '" + dirs.front() + "' and '" + dir + "': " + what +
                               "; the mean of two runs' weights is a model of neither "
                               "(--force-average averages them all the same)");
      };
      if (!first.run.empty() && !header.run.empty() && first.run != header.run)
        throw refuse("they come from different training runs (run " + first.run + " and run " +
                     header.run + ")");
      if (first.run.empty() || header.run.empty())  // no record: every setting must agree
        for (const std::string& key : Config::keys())
          if (header.config.get(key) != first.config.get(key))
            throw refuse(key + " is " + first.config.get(key) + " in one and " +
                         header.config.get(key) + " in the other");
    }
    // Two snapshots of one run differ in their loss history (it grows with the run), not in the
    // files that say how to read text.
    const auto without_history = [](std::map<std::string, std::string> files) {
      files.erase(kLossHistoryFile);
      return files;
    };
    if (without_history(header.files) != without_history(first.files))
      throw CheckpointError("cannot average '" + dirs.front() + "' and '" + dir +
                            "': their extra files differ");
    std::vector<NpyArray> arrays;
    read_one_version(dir, [&] { arrays = read_parameters(dir, params); });
    snapshots.push_back(std::move(arrays));
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

bool has_optimizer_state(const std::string& dir) {
  std::error_code ec;  // a state.txt that is not a file is there all the same: loading refuses it
  if (fs::exists(fs::symlink_status(fs::path(dir) / "optimizer" / "state.txt", ec))) return true;
  // An "optimizer" without its state.txt is a damaged state: resuming as "0 steps trained" would
  // restart Adam and the warm-up without a word.
  const fs::path folder = fs::path(dir) / "optimizer";
  if (fs::exists(fs::symlink_status(folder, ec)))
    throw CheckpointError(
        "checkpoint '" + dir + "' has '" + folder.string() +
        (fs::is_directory(folder, ec) ? "' without its state.txt" : "', which is not a directory") +
        ": its optimizer state is damaged (remove '" + folder.string() +
        "' to load the weights alone)");
  return false;
}

void load_optimizer_state(const std::string& dir, const ParameterList& params, Adam& optimizer) {
  const fs::path folder = fs::path(dir) / "optimizer";
  const fs::path state = folder / "state.txt";
  if (!has_optimizer_state(dir))
    throw CheckpointError("checkpoint '" + dir + "' holds no optimizer state (no file '" +
                          state.string() + "')");
  std::istringstream in;
  try {  // not a pipe (which would hang the read) or a device such as /dev/zero
    in.str(read_whole_file(state.string(), "optimizer state", 1024));
  } catch (const std::runtime_error& e) {
    throw CheckpointError(e.what());
  }
  std::string line;
  std::getline(in, line);
  if (!line.empty() && line.back() == '\r')
    line.pop_back();  // written on Windows, as config.txt may be
  const std::string digits = line.rfind("steps=", 0) == 0 ? line.substr(6) : "";
  if (digits.empty() || digits.size() > 18 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    throw CheckpointError("'" + state.string() + "': expected 'steps=N' on the first line, got '" +
                          line + "'");
  const std::size_t steps = std::stoull(digits);
  if (steps > kMaxSteps)
    throw CheckpointError("'" + state.string() + "': steps=" + digits +
                          " is more than any run could have taken (at most " +
                          std::to_string(kMaxSteps) + "); the file is damaged");

  std::string weights;  // "weights=<fingerprint>" (older checkpoints have no such line)
  if (std::getline(in, line) && line.rfind("weights=", 0) == 0) weights = line.substr(8, 16);

  std::vector<std::vector<float>> first, second;
  std::set<std::string> expected = {"state.txt"};
  for (const ParameterRef& p : params) {
    for (const char* moment : {".m.npy", ".v.npy"}) {
      const fs::path file = folder / (p.name + moment);
      const bool is_second = moment[1] == 'v';
      const std::string what =
          std::string(is_second ? "the second" : "the first") + " moment of '" + p.name + "'";
      NpyArray array = read_shaped(file, p.shape, what);  // finite, of the parameter's shape
      if (is_second) {
        // v is a running mean of squared gradients: never negative. A negative one would make
        // Adam's sqrt(v) NaN, and the first step after loading would turn the weights into NaN.
        const auto negative = std::find_if(array.values.begin(), array.values.end(),
                                           [](float v) { return v < 0.0f; });
        if (negative != array.values.end())
          throw CheckpointError(
              "'" + file.string() + "' holds " + std::to_string(*negative) + " at index " +
              index_in_shape(array.shape,
                             static_cast<std::size_t>(negative - array.values.begin())) +
              " (" + what + "): a second moment is a mean of squares and is never negative");
      }
      (is_second ? second : first).push_back(std::move(array.values));
      expected.insert(file.filename().string());
    }
  }
  require_no_other_files(folder, expected,
                         "checkpoint '" + dir + "' has an optimizer state the model does not:");
  // The moments belong to the weights they were saved with, which must be the ones loaded.
  if (!weights.empty() && weights != weights_fingerprint(params))
    throw CheckpointError(
        "'" + state.string() + "' was saved with other weights than these (fingerprint " + weights +
        ", loaded " + weights_fingerprint(params) + "): an optimizer state from another run?");
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
    detail = i < n ? "id " + std::to_string(i) + " is '" + saved.symbols()[i] +
                         "' in the checkpoint but '" + expected.symbols()[i] + "' here"
                   : "sizes differ: " + std::to_string(saved.size()) + " in the checkpoint vs " +
                         std::to_string(expected.size()) + " here";
  }
  throw CheckpointError("the checkpoint's " + what +
                        " vocabulary does not match this task's: " + detail);
}

}  // namespace tfm
