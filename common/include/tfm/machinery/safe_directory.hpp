/// \file safe_directory.hpp
/// \brief Machinery (not a lesson): writing a directory so that nothing a user saved is lost — a failed write
/// leaves the previous version as it was, and what a killed write left behind is cleaned up
/// later, never a live writer's work. Checkpoints are written this way (tfm::save_checkpoint).
///
/// A new version of `DIR` is written into a fresh sibling `DIR.saving.PID.N`, which then
/// replaces `DIR` by two renames (`DIR` -> `DIR.previous.PID.N`, the new one -> `DIR`). Were
/// the process killed between the two renames, the previous version would survive as
/// `DIR.previous.PID.N`. Such leftovers of a process that no longer runs are removed by the
/// next write beside them, and only while `DIR` itself is in place: without it, a `.previous`
/// copy is the only copy there is.
#pragma once

#include <filesystem>
#include <functional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace tfm {

/// Thrown for a directory that cannot be written; the message names it and what went wrong.
class SafeDirectoryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What one kind of directory holds, so that only such directories are ever replaced or removed.
struct DirectoryContents {
  std::string what;    ///< what one is called in messages, e.g. "checkpoint"
  std::string marker;  ///< the file every complete one holds, e.g. `config.txt`
  std::set<std::string>
      entries;  ///< every name it may hold; a folder with anything else is not ours
};

/// Where `dir` goes: an absolute path without a trailing '/', so that `DIR.saving` is a sibling of
/// DIR (not a file inside it). Throws SafeDirectoryError for an empty name or the root.
std::filesystem::path directory_target(const std::string& dir, const DirectoryContents& contents);

/// The most bytes a write appends to a name beside it: `.previous.PID.N`, each number of up
/// to 10 digits.
inline constexpr std::size_t kLongestWriteSuffix = sizeof(".previous.") - 1 + 10 + 1 + 10;

/// Why the name of `target` is too long for its file system once `added` bytes are appended to
/// it (the names a write makes beside it: `.previous.PID.N`, a step checkpoint's `-stepS`),
/// or "". Checked before the work that is to be saved, so that it is not lost to the name.
std::string name_length_problem(const std::filesystem::path& target, std::size_t added);

/// Why `target` cannot receive a new version, or "" if it can: its name leaves room for the names
/// a write makes beside it (name_length_problem); it must be a new name, an empty
/// directory or an earlier version (it holds `contents.marker` and nothing but `contents.entries`:
/// a write never deletes what it did not write), not a symbolic link, in a directory that exists
/// and may be written to.
std::string destination_problem(const std::filesystem::path& target,
                                const DirectoryContents& contents);

/// Writes a new version of `target` atomically and durably: removes the dead leftovers beside it,
/// has `write` fill a fresh sibling, flushes every file and folder of it to the disk (fsync), swaps
/// it in, flushes the parent folder (the renames) and removes the old version. If `write` (or a rename) throws,
/// the fresh sibling is removed and the old version stays in place; SafeDirectoryError then names
/// the error and says whether the previous version is intact.
void replace_directory(const std::filesystem::path& target, const DirectoryContents& contents,
                       const std::function<void(const std::filesystem::path& staging)>& write);

/// Removes what writes killed earlier left in the directory that holds `dir`. These are
/// `NAME.saving.PID.N` and `NAME.previous.PID.N` beside any NAME that is in place (`dir` itself, or a sibling
/// such as the step checkpoints beside a checkpoint). Only exactly so named, real directories
/// (not symbolic links) that hold nothing but `contents.entries`, of a `pid` for which
/// `kill(pid, 0)` fails with ESRCH. Returns the removed paths.
std::vector<std::string> remove_dead_leftovers(const std::string& dir,
                                               const DirectoryContents& contents);

/// For a missing `dir`: "; '`DIR.previous.PID.N`' holds ... rename it to 'DIR' to use it" when a
/// write killed between its two renames left the previous version there, else "".
std::string killed_write_hint(const std::string& dir, const DirectoryContents& contents);

}  // namespace tfm
