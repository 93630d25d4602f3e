#include "tfm/machinery/safe_directory.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace tfm {
namespace fs = std::filesystem;
namespace {

// A directory that a write of "<name>" by a process that no longer runs left beside it:
// "<name>.saving.<pid>.<n>" (a half-written, or complete, new version) or
// "<name>.previous.<pid>.<n>" (the old version, moved aside for the swap).
struct Leftover {
  fs::path path;
  std::string name;  // <name>
  bool previous;     // ".previous": the only copy of <name> if <name> is missing
};

// 1 to 10 decimal digits and nothing else (a pid, a write counter), or -1.
long long small_number(const std::string& text) {
  if (text.empty() || text.size() > 10 || text.find_first_not_of("0123456789") != std::string::npos)
    return -1;
  return std::stoll(text);
}

// Is `pid` a process that is running (or that exists but belongs to another user)?
bool process_exists(long long pid) {
  if (pid <= 0 || pid > 0x7FFFFFFF) return false;
  if (pid == ::getpid()) return true;
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH;
}

// Does `folder` hold only what a directory of this kind holds? A folder with anything else is
// not this program's to delete.
bool holds_only(const fs::path& folder, const DirectoryContents& contents) {
  std::error_code ec;
  for (auto it = fs::directory_iterator(folder, ec); it != fs::directory_iterator();
       it.increment(ec)) {
    if (ec || !contents.entries.count(it->path().filename().string())) return false;
  }
  return !ec;
}

// The entries of `folder` that a directory of this kind does not hold, quoted and listed
// ("'NOTES.md', 'eval'"), or "" when there are none or `folder` is not a directory.
std::string foreign_entries(const fs::path& folder, const DirectoryContents& contents) {
  std::set<std::string> foreign;
  std::error_code ec;
  for (auto it = fs::directory_iterator(folder, ec); !ec && it != fs::directory_iterator();
       it.increment(ec))
    if (!contents.entries.count(it->path().filename().string()))
      foreign.insert(it->path().filename().string());
  std::string list;
  for (const std::string& name : foreign) list += (list.empty() ? "'" : ", '") + name + "'";
  return list;
}

// Every entry of `folder` that is, to the last character, "<name>.saving.<pid>.<n>" or
// "<name>.previous.<pid>.<n>", a real directory (not a symbolic link) holding only `contents`,
// of a pid for which kill(pid, 0) answers ESRCH. Anything else, a live process's write in
// particular, is never listed.
std::vector<Leftover> dead_leftovers(const fs::path& folder, const DirectoryContents& contents) {
  std::vector<Leftover> found;
  std::error_code ec;
  for (auto it = fs::directory_iterator(folder, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    // Read from the right: <name>.<kind>.<pid>.<n>; <name> may contain dots itself.
    const std::string entry = it->path().filename().string();
    const auto dot3 = entry.rfind('.');
    const auto dot2 =
        dot3 == 0 || dot3 == std::string::npos ? std::string::npos : entry.rfind('.', dot3 - 1);
    const auto dot1 =
        dot2 == 0 || dot2 == std::string::npos ? std::string::npos : entry.rfind('.', dot2 - 1);
    if (dot1 == std::string::npos || dot1 == 0) continue;
    const std::string kind = entry.substr(dot1 + 1, dot2 - dot1 - 1);
    if (kind != "saving" && kind != "previous") continue;
    const long long pid = small_number(entry.substr(dot2 + 1, dot3 - dot2 - 1));
    if (pid <= 0 || small_number(entry.substr(dot3 + 1)) < 0) continue;
    std::error_code status_error;
    if (!fs::is_directory(fs::symlink_status(it->path(), status_error)) || process_exists(pid) ||
        !holds_only(it->path(), contents))
      continue;
    found.push_back({it->path(), entry.substr(0, dot1), kind == "previous"});
  }
  return found;
}

// fsync(2) of one file or folder, so that a power loss after the swap cannot leave it empty.
void sync_path(const fs::path& path, bool directory) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (directory ? O_DIRECTORY : 0));
  if (fd < 0 || ::fsync(fd) != 0) {
    const int error = errno;
    if (fd >= 0) ::close(fd);
    throw SafeDirectoryError("could not flush '" + path.string() +
                             "' to the disk: " + std::strerror(error));
  }
  ::close(fd);
}

// Every file and folder of `root`, root last: all of it is on the disk before it is published.
void sync_tree(const fs::path& root) {
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_symlink()) continue;
    sync_path(entry.path(), entry.is_directory());
  }
  sync_path(root, true);
}

}  // namespace

std::string name_length_problem(const fs::path& target, std::size_t added) {
  const long limit = ::pathconf(target.parent_path().c_str(), _PC_NAME_MAX);
  const std::size_t most = limit > 0 ? static_cast<std::size_t>(limit) : 255;
  const std::size_t length = target.filename().string().size();
  if (length + added <= most) return "";
  return "its name is " + std::to_string(length) +
         " bytes long, but the names a save writes beside it add up to " + std::to_string(added) +
         " bytes more (such as 'NAME.previous.<pid>.<n>'), and this file system allows " +
         std::to_string(most) + " bytes in a name: use a name of at most " +
         std::to_string(most > added ? most - added : 0) + " bytes";
}

fs::path directory_target(const std::string& dir, const DirectoryContents& contents) {
  if (dir.empty()) throw SafeDirectoryError("the " + contents.what + " directory's name is empty");
  fs::path path = fs::absolute(fs::path(dir)).lexically_normal();
  if (!path.has_filename()) path = path.parent_path();
  if (path == path.root_path())
    throw SafeDirectoryError("'" + dir + "' cannot be a " + contents.what + " directory");
  return path;
}

std::string destination_problem(const fs::path& target, const DirectoryContents& contents) {
  if (std::string problem = name_length_problem(target, kLongestWriteSuffix); !problem.empty())
    return problem;
  std::error_code ec;
  if (fs::is_symlink(
          fs::symlink_status(target, ec)))  // the swap would replace the link, not its folder
    return "it is a symbolic link to '" + fs::read_symlink(target, ec).string() +
           "'; give the directory itself";
  if (fs::exists(target) && !fs::is_directory(target)) return "it exists and is not a directory";
  if (fs::is_directory(target) && !fs::exists(target / contents.marker) && !fs::is_empty(target))
    return "it is a directory that holds no " + contents.what + " (no " + contents.marker +
           "); it will not be replaced";
  if (const std::string foreign = foreign_entries(target, contents); !foreign.empty())
    return "it holds " + foreign + ", which a " + contents.what +
           " does not have and a save would delete; move them out first";
  const fs::path parent = target.parent_path();
  if (!fs::is_directory(parent)) return "its parent '" + parent.string() + "' is not a directory";
  if (::access(parent.c_str(), W_OK | X_OK) != 0)
    return "its parent '" + parent.string() + "' cannot be written to";
  return "";
}

std::vector<std::string> remove_dead_leftovers(const std::string& dir,
                                               const DirectoryContents& contents) {
  std::vector<std::string> removed;
  const fs::path target = directory_target(dir, contents);
  for (const Leftover& leftover : dead_leftovers(target.parent_path(), contents)) {
    // Only beside a version that is in place under its real name: without one, a ".previous"
    // copy is the only copy there is (the process was killed between the two renames of the
    // swap) and the ".saving" one may be the newer version. Both then wait for a person.
    std::error_code ec;
    if (!fs::is_regular_file(target.parent_path() / leftover.name / contents.marker, ec)) continue;
    fs::remove_all(leftover.path, ec);
    if (!ec) removed.push_back(leftover.path.string());
  }
  return removed;
}

std::string killed_write_hint(const std::string& dir, const DirectoryContents& contents) {
  if (dir.empty()) return "";
  std::error_code ec;
  fs::path target = fs::absolute(fs::path(dir), ec).lexically_normal();
  if (ec) return "";
  if (!target.has_filename()) target = target.parent_path();
  for (const Leftover& leftover : dead_leftovers(target.parent_path(), contents))
    if (leftover.previous && leftover.name == target.filename().string() &&
        fs::is_regular_file(leftover.path / contents.marker, ec))
      return "; '" + leftover.path.string() + "' holds the " + contents.what +
             " that a save killed halfway left behind: rename it to '" + dir + "' to use it";
  return "";
}

void replace_directory(const fs::path& target, const DirectoryContents& contents,
                       const std::function<void(const fs::path& staging)>& write) {
  // What earlier writes killed halfway left beside the target goes first: on a disk they
  // filled, this write could not succeed otherwise.
  remove_dead_leftovers(target.string(), contents);
  static std::atomic<unsigned> writes{0};
  const std::string suffix = "." + std::to_string(::getpid()) + "." + std::to_string(writes++);
  const fs::path staging = target.string() + ".saving" + suffix;
  const fs::path previous = target.string() + ".previous" + suffix;
  try {
    fs::remove_all(staging);
    fs::create_directories(staging);
    write(staging);      // everything goes into a fresh directory beside the target...
    sync_tree(staging);  // ...on the disk, not only in the page cache...
    // ...then it is swapped in. The old version is deleted only once the new one is in place.
    const bool replacing = fs::exists(target);
    if (replacing) fs::rename(target, previous);
    fs::rename(staging, target);
    sync_path(target.parent_path(), true);  // the renames themselves
    if (replacing) {
      std::error_code ignored;  // the write has succeeded; a leftover old copy is only clutter
      fs::remove_all(previous, ignored);
    }
  } catch (const std::exception& e) {
    // Only calls that cannot throw here: the error to report is e.
    std::error_code ignored;
    fs::remove_all(staging, ignored);
    if (!fs::exists(target, ignored) && fs::exists(previous, ignored))
      fs::rename(previous, target, ignored);
    throw SafeDirectoryError(std::string(e.what()) +
                             (fs::exists(target, ignored)
                                  ? " (the previous " + contents.what + " is intact)"
                                  : std::string(" (nothing was saved)")));
  }
  remove_dead_leftovers(target.string(),
                        contents);  // old copies killed writes left while none was in place
}

}  // namespace tfm
