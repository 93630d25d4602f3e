/// \file text_file.hpp
/// \brief Support (not a lesson): reading a whole text file of outside data (a dictionary, a rule file) with
/// errors that name the file and what is wrong with it; writing one, and the outputs a user can do
/// without (a plot, a results file), whose failure must never cost what was trained.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace tfm {

/// Throws std::runtime_error unless `path` (its symbolic links followed) is a regular file of at
/// most `max_bytes` bytes: a directory, a pipe (whose reader would wait forever) or a device such
/// as /dev/zero (which never ends) is refused before it is opened. `what` names it in messages.
void require_regular_file(const std::string& path, const std::string& what,
                          std::uintmax_t max_bytes);

/// Every byte of the regular file `path` (require_regular_file), read to the end: a read error is
/// a std::runtime_error with the system's reason (e.g. "Input/output error"), and so is a file
/// that turns out shorter or longer than its size said when it was opened (another program
/// truncating or writing it): never a part of the file taken for the whole.
std::string read_whole_file(const std::string& path, const std::string& what,
                            std::uintmax_t max_bytes);

/// The bytes of the text file `path` (read_whole_file); `what` names it in the messages (e.g. "dictionary").
/// Throws std::runtime_error for a missing or unreadable file, a directory, a device or pipe,
/// a file over `max_bytes`, an empty file, or a file with a zero byte (not text).
std::string read_text_file(const std::string& path, const std::string& what,
                           std::uintmax_t max_bytes = 64u << 20);

/// Writes `content` to `path`, replacing it. Throws std::runtime_error naming the file and the
/// system's reason (permission denied, no such directory, no space left on device).
void write_text_file(const std::string& path, const std::string& content);

/// Runs `write`, which makes an output the user can do without (a plot, a results file). If it
/// throws, says "warning: <why>" on stderr and returns false: the program goes on.
bool write_side_output(const std::function<void()>& write);

}  // namespace tfm
