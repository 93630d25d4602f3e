/// \file command_line.hpp
/// \brief Machinery (not a lesson): a small command-line parser shared by the chapter executables.
#pragma once

#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "tfm/model/config.hpp"

namespace tfm {

/// Thrown for a command line that cannot be understood; the message names the flag.
class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Declares options, parses `argv`, and answers `--help`.
class CommandLine {
 public:
  /// `program` is the executable's name, used in the usage line and in error messages;
  /// `summary` is the paragraph `--help` prints under the usage line.
  CommandLine(std::string program, std::string summary);

  /// An option that takes one value: `--name VALUE`.
  CommandLine& option(const std::string& name, const std::string& metavar, const std::string& help,
                      const std::string& default_value = "");
  /// An option that may be given many times: `--name VALUE --name VALUE`.
  CommandLine& repeated(const std::string& name, const std::string& metavar,
                        const std::string& help);
  /// An option without a value: `--name`.
  CommandLine& flag(const std::string& name, const std::string& help);
  /// The two options of every program that builds a model: `--preset NAME` (one of
  /// tfm::preset_names(), `default_preset` when not given) and the repeated `--set KEY=VALUE`
  /// (`set_help` is its line in `--help`). Read them back with tfm::config_from_command_line.
  CommandLine& config_options(const std::string& default_preset,
                              const std::string& set_help = "override one hyper-parameter");
  /// The only config keys this program reads (a chapter that builds one layer, or takes its
  /// lengths and vocabularies from its example sentences): `--set` of any other key is refused,
  /// naming these, rather than ignored. Call after config_options.
  CommandLine& config_keys_used(std::vector<std::string> keys);
  /// The keys of config_keys_used (empty: the program reads every key).
  const std::vector<std::string>& config_keys() const { return config_keys_; }
  /// The program's name, as its messages give it.
  const std::string& program() const { return program_; }

  /// Parses the arguments. Returns false when `--help` was asked for (the help is printed);
  /// throws UsageError for an unknown option, a missing or empty value, or a one-value option
  /// given twice.
  bool parse(int argc, const char* const* argv);

  /// The value of an option (its default when it was not given).
  const std::string& value(const std::string& name) const;
  /// Did the program declare an option? (Shared readers of options some programs leave out.)
  bool declares(const std::string& name) const;
  /// Was an option given on the command line?
  bool given(const std::string& name) const;
  /// The value of an option read as a whole number; throws UsageError naming the option.
  long long integer(const std::string& name) const;
  /// The value of an option read as a count (a whole number >= 0); throws UsageError naming the
  /// option otherwise.
  std::size_t count(const std::string& name) const;
  /// The value of an option read as a whole number from `min` to `max`; throws UsageError naming
  /// the option and the range otherwise.
  std::size_t count(const std::string& name, std::size_t min, std::size_t max) const;
  /// The value of an option read as a number; throws UsageError naming the option.
  double number(const std::string& name) const;
  /// The value of an option read as a finite number > 0 (not inf, not nan); throws UsageError
  /// naming the option otherwise.
  double positive_number(const std::string& name) const;
  /// All values of a repeated option, in order.
  const std::vector<std::string>& values(const std::string& name) const;
  /// Was a flag given?
  bool flag_set(const std::string& name) const;
  /// The help text.
  std::string help() const;

 private:
  enum class Kind { kValue, kRepeated, kFlag };
  struct Spec {
    std::string name, metavar, help;
    Kind kind;
  };
  const Spec& spec(const std::string& name) const;

  std::string program_, summary_;
  std::vector<Spec> specs_;
  std::map<std::string, std::string> values_;
  std::map<std::string, std::vector<std::string>> lists_;
  std::map<std::string, bool> flags_;
  std::map<std::string, bool> given_;
  std::vector<std::string> config_keys_;
};

/// The configuration `cli` asks for (declared with CommandLine::config_options): the `--preset`,
/// then every `--set KEY=VALUE` in the order given (a later one wins), validated. Throws
/// std::invalid_argument naming the preset, key or field at fault.
Config config_from_command_line(const CommandLine& cli);
/// The same, starting from `base` unless `--preset` was given (a program whose default model is
/// not a preset as it stands, e.g. one sized to its data).
Config config_from_command_line(const CommandLine& cli, const Config& base);

/// Runs a chapter's body, turning any exception into a one-line `error: ...` message on stderr
/// and a non-zero exit code (2 for usage errors, 1 otherwise); std::bad_alloc says which sizes to
/// make smaller. SIGPIPE and SIGXFSZ are ignored, so that a closed pipe or a file-size limit is
/// an error a write reports, not the end of the run. Standard output is flushed and checked last:
/// output that did not all arrive (a full disk, a reader such as `head` that ended) is an error
/// and exit code 1, never a success.
int run_program(const std::function<int()>& body);

}  // namespace tfm
