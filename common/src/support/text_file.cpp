#include "tfm/support/text_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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

std::string read_whole_file(const std::string& path, const std::string& what,
                            std::uintmax_t max_bytes) {
  require_regular_file(path, what, max_bytes);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    throw std::runtime_error("cannot open " + what + " '" + path + "': " + std::strerror(errno));
  const auto fail = [&](const std::string& message) {
    ::close(fd);
    return std::runtime_error(message);
  };
  struct stat status {};
  if (::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode))
    throw fail("cannot read " + what + " '" + path + "': it is not a regular file");
  const auto size = static_cast<std::uintmax_t>(status.st_size);
  if (size > max_bytes)
    throw fail(what + " '" + path + "' has " + std::to_string(size) +
               " bytes; the most this program reads is " + std::to_string(max_bytes));
  // One byte more than the size: a file that grows while it is read is noticed too.
  std::string bytes(static_cast<std::size_t>(size) + 1, '\0');
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::read(fd, &bytes[got], bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      throw fail("error while reading " + what + " '" + path + "' after " + std::to_string(got) +
                 " of " + std::to_string(size) + " bytes: " + std::strerror(errno));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (got != size)
    throw std::runtime_error(what + " '" + path +
                             "' changed while it was read: " + std::to_string(got) +
                             (got < size ? " bytes" : " bytes or more") + " read, but it had " +
                             std::to_string(size) + " (another program writing or truncating it?)");
  bytes.resize(got);
  return bytes;
}

std::string read_text_file(const std::string& path, const std::string& what,
                           std::uintmax_t max_bytes) {
  std::string text = read_whole_file(path, what, max_bytes);
  if (text.empty()) throw std::runtime_error(what + " '" + path + "' is empty (0 bytes)");
  if (const std::size_t nul = text.find('\0'); nul != std::string::npos) {
    // UTF-16 (Windows' "Unicode") has a zero byte beside every ASCII letter, and often a BOM.
    const bool utf16 = text.rfind("\xFF\xFE", 0) == 0 || text.rfind("\xFE\xFF", 0) == 0 ||
                       (text.size() >= 4 && (text[1] == '\0') != (text[0] == '\0') &&
                        (text[3] == '\0') == (text[1] == '\0'));
    throw std::runtime_error(what + " '" + path + "' is not a text file (a zero byte at offset " +
                             std::to_string(nul) + ")" +
                             (utf16 ? "; it looks like UTF-16: convert it with "
                                      "iconv -f utf-16 -t utf-8"
                                    : ""));
  }
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
