#include "tfm/io/text_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace tfm {

void require_regular_file(const std::string& path, const std::string& what,
                          std::uintmax_t max_bytes) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (!fs::exists(status))
    throw std::runtime_error("cannot open " + what + " '" + path + "': No such file or directory");
  if (fs::is_directory(status))
    throw std::runtime_error("cannot read " + what + " '" + path + "': it is a directory");
  if (!fs::is_regular_file(status))
    throw std::runtime_error("cannot read " + what + " '" + path +
                             "': it is not a regular file (a pipe or a device?)");
  const std::uintmax_t bytes = fs::file_size(path, error);
  if (!error && bytes > max_bytes)
    throw std::runtime_error(what + " '" + path + "' has " + std::to_string(bytes) +
                             " bytes; the most this program reads is " + std::to_string(max_bytes));
}

std::string read_text_file(const std::string& path, const std::string& what,
                           std::uintmax_t max_bytes) {
  require_regular_file(path, what, max_bytes);
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot open " + what + " '" + path + "': " + std::strerror(errno));
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) throw std::runtime_error("error while reading " + what + " '" + path + "'");
  std::string text = content.str();
  if (text.empty()) throw std::runtime_error(what + " '" + path + "' is empty (0 bytes)");
  if (const std::size_t nul = text.find('\0'); nul != std::string::npos)
    throw std::runtime_error(what + " '" + path + "' is not a text file (a zero byte at offset " +
                             std::to_string(nul) + ")");
  return text;
}

void write_text_file(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("cannot write '" + path + "': " + std::strerror(errno));
  out << content;
  out.close();
  if (!out)
    throw std::runtime_error("could not write all of '" + path + "': " + std::strerror(errno));
}

bool write_side_output(const std::function<void()>& write) {
  try {
    write();
    return true;
  } catch (const std::exception& e) {
    std::cerr << "warning: " << e.what() << "\n";
    return false;
  }
}

}  // namespace tfm
