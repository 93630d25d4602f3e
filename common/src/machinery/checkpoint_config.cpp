#include "tfm/machinery/checkpoint_config.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "tfm/machinery/checkpoint.hpp"
#include "tfm/support/printable.hpp"
#include "tfm/support/text_file.hpp"

namespace tfm {
namespace fs = std::filesystem;

const std::set<std::string>& checkpoint_model_keys() {
  static const std::set<std::string> keys = {
      "src_vocab_size",   "tgt_vocab_size",   "d_model", "n_heads",
      "n_encoder_layers", "n_decoder_layers", "d_ff",    "attention_bias",
      "linear_bias",      "shared_embedding", "max_len"};
  return keys;
}

namespace {

// The model keys as they were saved, once more on the last line of config.txt:
//   # model as saved: src_vocab_size=9 tgt_vocab_size=10 d_model=8 n_heads=2 ...
// n_heads and max_len change no tensor's shape, so an edit of config.txt that changes them
// would load the weights into a model they were not trained for, without a word; the record
// lets the reader notice and name the key. (A checkpoint without the line, older or exported
// from PyTorch, is read as before.)
constexpr const char* kSavedModelPrefix = "# model as saved:";

}  // namespace

constexpr const char* kRunPrefix = "# run ";

std::string checkpoint_config_text(const Config& config, const std::string& run) {
  std::string text = "# preset " + config.preset + "\n";
  if (!run.empty()) text += kRunPrefix + run + "\n";
  for (const std::string& key : Config::keys()) text += key + "=" + config.get(key) + "\n";
  text += kSavedModelPrefix;
  for (const std::string& key : Config::keys())
    if (checkpoint_model_keys().count(key)) text += " " + key + "=" + config.get(key);
  return text + "\n";
}

std::string checkpoint_run(const std::string& text) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind(kRunPrefix, 0) == 0) return line.substr(std::string(kRunPrefix).size());
  }
  return "";
}

namespace {

// The "# model as saved:" line, key -> value; throws naming the line if it is malformed.
std::map<std::string, std::string> saved_model_record(const std::string& line,
                                                      const std::string& where) {
  std::map<std::string, std::string> record;
  std::istringstream words(line.substr(std::string(kSavedModelPrefix).size()));
  for (std::string word; words >> word;) {
    const auto eq = word.find('=');
    const std::string key = eq == std::string::npos ? word : word.substr(0, eq);
    if (eq == std::string::npos || !checkpoint_model_keys().count(key) || record.count(key))
      throw CheckpointError(where + "the '" + kSavedModelPrefix + "' line has '" + word +
                            "', expected each model key once as key=value");
    record[key] = word.substr(eq + 1);
  }
  return record;
}

}  // namespace

// No key may appear twice, and every model key must appear.
Config parse_checkpoint_config(const std::string& text, const std::string& name) {
  Config config;
  std::set<std::string> seen;
  std::map<std::string, int> key_lines;       // key -> the line that set it
  std::map<std::string, std::string> record;  // the "# model as saved:" line, if any
  int record_line = 0;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string where = name + ", line " + std::to_string(number) + ": ";
    if (line.rfind("# preset ", 0) == 0) {
      config.preset = line.substr(9);
      continue;
    }
    if (line.rfind(kSavedModelPrefix, 0) == 0) {
      if (record_line != 0)
        throw CheckpointError(where + "a second '" + kSavedModelPrefix +
                              "' line (the first is line " + std::to_string(record_line) + ")");
      record = saved_model_record(line, where);
      record_line = number;
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    const auto eq = line.find('=');
    if (eq == std::string::npos || eq == 0)
      throw CheckpointError(where + "expected key=value, got '" + printable(line) + "'");
    const std::string key = line.substr(0, eq);
    try {
      config.set(key, line.substr(eq + 1));
    } catch (const std::invalid_argument& e) {
      throw CheckpointError(where + e.what());
    }
    if (!seen.insert(key).second) throw CheckpointError(where + "key '" + key + "' is set twice");
    key_lines[key] = number;
    // Config::set reads "inf" and "nan" as numbers; no setting of this program means either
    // (a learning rate of inf passes validate()'s "> 0" and turns every weight into NaN).
    if (config.get(key).find_first_of("0123456789") == std::string::npos)  // "nan", "inf", "-inf"
      throw CheckpointError(where + "config key '" + key + "' needs a finite number, got '" +
                            line.substr(eq + 1) + "'");
  }
  for (const std::string& key : checkpoint_model_keys())
    if (!seen.count(key)) throw CheckpointError(name + ": missing key '" + key + "'");
  // The record makes an edit of n_heads or max_len (which change no shape) visible, so a
  // config.txt without it, or with a model key missing from it, is refused.
  if (record_line == 0)
    throw CheckpointError(
        name + ": no '" + kSavedModelPrefix +
        "' line; every checkpoint save_checkpoint writes has one: was config.txt edited?");
  for (const std::string& key : checkpoint_model_keys())
    if (!record.count(key))
      throw CheckpointError(name + ", line " + std::to_string(record_line) + ": the '" +
                            kSavedModelPrefix + "' line has no " + key);
  try {
    config.validate();
  } catch (const std::invalid_argument& e) {
    throw CheckpointError(name + ": " + e.what());
  }
  for (const auto& [key, saved] : record)
    if (config.get(key) != saved)
      throw CheckpointError(
          name + ", line " + std::to_string(key_lines[key]) + ": " + key + "=" + config.get(key) +
          ", but the checkpoint was saved with " + key + "=" + saved + " (line " +
          std::to_string(record_line) + ", '" + kSavedModelPrefix + "'): " +
          (key == "n_heads" || key == "max_len" ? key + " changes no tensor's shape, so "
                                                : std::string()) +
          "the weights would load into a model they were not trained for; "
          "to change the model, train a new one instead of editing config.txt");
  return config;
}

Config read_checkpoint_config(const std::string& file) {
  const fs::path path(file);
  std::error_code missing;
  if (!fs::exists(fs::symlink_status(path, missing)))
    throw CheckpointError("missing '" + path.string() + "': not a checkpoint directory?");
  // config.txt is about 500 bytes; a file of megabytes is not one (and is not read into memory).
  // Not a pipe (which would hang the read), a device or a directory; read to its end.
  std::string text;
  try {
    text = read_whole_file(file, "checkpoint configuration", 1u << 20);
  } catch (const std::runtime_error& e) {
    throw CheckpointError(e.what());
  }
  return parse_checkpoint_config(text, path.string());
}

}  // namespace tfm
