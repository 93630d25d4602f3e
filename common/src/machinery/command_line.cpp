#include "tfm/machinery/command_line.hpp"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <new>
#include <optional>
#include <set>
#include <sstream>

#include "tfm/support/parse_number.hpp"

namespace tfm {

CommandLine::CommandLine(std::string program, std::string summary)
    : program_(std::move(program)), summary_(std::move(summary)) {}

CommandLine& CommandLine::option(const std::string& name, const std::string& metavar,
                                 const std::string& help, const std::string& default_value) {
  specs_.push_back({name, metavar, help, Kind::kValue});
  values_[name] = default_value;
  return *this;
}

CommandLine& CommandLine::repeated(const std::string& name, const std::string& metavar,
                                   const std::string& help) {
  specs_.push_back({name, metavar, help, Kind::kRepeated});
  lists_[name];
  return *this;
}

CommandLine& CommandLine::config_options(const std::string& default_preset,
                                         const std::string& set_help) {
  std::string names;
  for (const std::string& name : preset_names()) names += (names.empty() ? "" : " | ") + name;
  return option("--preset", "NAME", names, default_preset).repeated("--set", "KEY=VALUE", set_help);
}

CommandLine& CommandLine::config_keys_used(std::vector<std::string> keys) {
  std::string list;
  for (const std::string& key : keys) list += (list.empty() ? "" : ", ") + key;
  for (Spec& s : specs_)
    if (s.name == "--set") s.help += " (" + list + "; the others are not used here)";
  config_keys_ = std::move(keys);
  return *this;
}

CommandLine& CommandLine::flag(const std::string& name, const std::string& help) {
  specs_.push_back({name, "", help, Kind::kFlag});
  flags_[name] = false;
  return *this;
}

const CommandLine::Spec& CommandLine::spec(const std::string& name) const {
  for (const Spec& s : specs_)
    if (s.name == name) return s;
  throw UsageError("unknown option '" + name + "' (see " + program_ + " --help)");
}

bool CommandLine::parse(int argc, const char* const* argv) {
  std::set<std::string> seen;  // the one-value options given so far: a second one is refused
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << help();
      return false;
    }
    if (arg.rfind("--help=", 0) == 0) throw UsageError("option '--help' takes no value");
    std::string inline_value;
    bool has_inline = false;
    if (const auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      inline_value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_inline = true;
    }
    const Spec& s = spec(arg);
    given_[s.name] = true;
    if (s.kind == Kind::kFlag) {
      if (has_inline) throw UsageError("option '" + s.name + "' takes no value");
      flags_[s.name] = true;
      continue;
    }
    std::string value;
    if (has_inline) {
      value = inline_value;
    } else {
      if (i + 1 >= argc) throw UsageError("option '" + s.name + "' needs a value " + s.metavar);
      value = argv[++i];
    }
    // An empty value ("--save ''") is a mistake: a shell variable that was never set.
    if (value.empty())
      throw UsageError("option '" + s.name + "' needs a value " + s.metavar + ", got an empty one");
    if (s.kind == Kind::kRepeated) {
      lists_[s.name].push_back(value);
    } else if (seen.count(s.name)) {
      throw UsageError("option '" + s.name + "' was given twice ('" + values_[s.name] +
                       "', then '" + value + "'); give it once");
    } else {
      values_[s.name] = value;
      seen.insert(s.name);
    }
  }
  return true;
}

const std::string& CommandLine::value(const std::string& name) const {
  spec(name);
  return values_.at(name);
}

bool CommandLine::declares(const std::string& name) const {
  return std::any_of(specs_.begin(), specs_.end(), [&](const Spec& s) { return s.name == name; });
}

bool CommandLine::given(const std::string& name) const {
  spec(name);
  auto it = given_.find(name);
  return it != given_.end() && it->second;
}

long long CommandLine::integer(const std::string& name) const {
  const std::string& text = value(name);
  const std::optional<long long> v = parse_number<long long>(text);
  const std::size_t digits_from = !text.empty() && text[0] == '-' ? 1 : 0;
  if (!v && text.size() > digits_from &&
      text.find_first_not_of("0123456789", digits_from) == std::string::npos)
    throw UsageError("option '" + name +
                     "' needs a whole number of at most 9223372036854775807, got '" + text + "'");
  if (!v) throw UsageError("option '" + name + "' needs a whole number, got '" + text + "'");
  return *v;
}

std::size_t CommandLine::count(const std::string& name) const {
  const long long v = integer(name);
  if (v < 0)
    throw UsageError("option '" + name + "' needs a whole number >= 0, got " + std::to_string(v));
  return static_cast<std::size_t>(v);
}

std::size_t CommandLine::count(const std::string& name, std::size_t min, std::size_t max) const {
  const long long v = integer(name);
  if (v < 0 || static_cast<std::size_t>(v) < min || static_cast<std::size_t>(v) > max)
    throw UsageError("option '" + name + "' needs a whole number from " + std::to_string(min) +
                     " to " + std::to_string(max) + ", got " + std::to_string(v));
  return static_cast<std::size_t>(v);
}

double CommandLine::positive_number(const std::string& name) const {
  const double v = number(name);
  if (!(v > 0.0 && std::isfinite(v)))
    throw UsageError("option '" + name + "' needs a finite number > 0, got " + value(name));
  return v;
}

double CommandLine::number(const std::string& name) const {
  const std::string& text = value(name);
  const std::optional<double> v = parse_number<double>(text);
  if (!v) throw UsageError("option '" + name + "' needs a number, got '" + text + "'");
  return *v;
}

const std::vector<std::string>& CommandLine::values(const std::string& name) const {
  spec(name);
  return lists_.at(name);
}

bool CommandLine::flag_set(const std::string& name) const {
  spec(name);
  return flags_.at(name);
}

std::string CommandLine::help() const {
  std::ostringstream out;
  out << "usage: " << program_ << " [options]\n\n" << summary_ << "\n\noptions:\n";
  for (const Spec& s : specs_) {
    std::string left = s.name + (s.metavar.empty() ? "" : " " + s.metavar);
    if (left.size() < 24) left.resize(24, ' ');
    out << "  " << left << " " << s.help;
    if (s.kind == Kind::kValue && !values_.at(s.name).empty())
      out << " (default: " << values_.at(s.name) << ")";
    if (s.kind == Kind::kRepeated) out << " (repeatable)";
    out << '\n';
  }
  out << "  --help                   show this help\n";
  return out.str();
}

namespace {

// A `--set KEY=VALUE` (already accepted by Config::set) whose key the program does not read
// (CommandLine::config_keys_used) is a usage error, not a silent no-op.
void refuse_unused_key(const CommandLine& cli, const std::string& assignment) {
  const std::vector<std::string>& used = cli.config_keys();
  const std::string key = assignment.substr(0, assignment.find('='));
  if (used.empty() || std::find(used.begin(), used.end(), key) != used.end()) return;
  std::string list;
  for (const std::string& k : used) list += (list.empty() ? "" : ", ") + k;
  throw UsageError("--set " + key + ": " + cli.program() + " does not use " + key + "; it uses " +
                   list);
}

}  // namespace

// [build config]
Config config_from_command_line(const CommandLine& cli) {
  return config_from_command_line(cli, preset(cli.value("--preset")));
}

Config config_from_command_line(const CommandLine& cli, const Config& base) {
  Config config = cli.given("--preset") ? preset(cli.value("--preset")) : base;
  try {  // a bad --set is a usage error (exit code 2), like any other bad option
    for (const std::string& assignment : cli.values("--set")) {
      config.set(assignment);
      refuse_unused_key(cli, assignment);
    }
    config.validate();
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  return config;
}
// [build config]

namespace {

// Why what the program wrote to standard output did not all arrive, or "" when it did: the
// reader of a pipe ended (`| head`), the disk is full (`> /dev/full`). The streams only remember
// that a write failed; the last flush, or the pipe itself, says why.
std::string lost_output() {
  std::cout.flush();
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int error = errno;
  if (flushed && std::cout.good() && !std::ferror(stdout)) return "";
  if (error != 0) return std::strerror(error);
  pollfd out{STDOUT_FILENO, POLLOUT, 0};
  if (::poll(&out, 1, 0) == 1 && (out.revents & POLLERR) != 0) return std::strerror(EPIPE);
  return "a write failed: a full disk?";
}

int body_code(const std::function<int()>& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    std::cerr << "error: " << e.what() << '\n';
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of memory: the sizes asked for need more memory than this machine has "
                 "(try a smaller --set d_model, d_ff, a shorter sequence or a smaller batch)\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << '\n';
    return 1;
  }
}

}  // namespace

int run_program(const std::function<int()>& body) {
  // A write past the reader of a pipe, or past a file-size limit (ulimit -f), fails with an
  // error instead of killing the program: the printing ends, not the run, and a save that hits
  // the limit is rescued like any other failed save.
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGXFSZ, SIG_IGN);
  const int code = body_code(body);
  if (const std::string lost = lost_output(); !lost.empty()) {
    std::cerr << "error: standard output could not be written (" << lost
              << "): what was printed is incomplete, though the run itself went on to its end\n";
    return code == 0 ? 1 : code;
  }
  return code;
}

}  // namespace tfm
