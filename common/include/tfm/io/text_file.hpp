/// \file text_file.hpp
/// \brief Chapter 11: reading a whole text file of outside data (a dictionary, a rule file) with
/// errors that name the file and what is wrong with it.
#pragma once

#include <cstdint>
#include <string>

namespace tfm {

/// The bytes of the text file `path`; `what` names it in the messages (e.g. "dictionary").
/// Throws std::runtime_error for a missing or unreadable file, a directory, a device or pipe,
/// a file over `max_bytes`, an empty file, or a file with a zero byte (not text).
std::string read_text_file(const std::string& path, const std::string& what,
                           std::uintmax_t max_bytes = 64u << 20);

}  // namespace tfm
