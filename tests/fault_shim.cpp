// A library the tests put in front of the C library (LD_PRELOAD) to make the faults CI cannot make
// as root, or at all: a read that fails with EIO or ends early halfway through a file, and a
// record of the fsync and rename calls that show a save is durable. Set by the environment:
//
//   FAULT_READ_PATH=TEXT   the reads of a file whose path contains TEXT ...
//   FAULT_READ_CALL=N      ... from the N-th on (1: the first) ...
//   FAULT_READ_KIND=eio    ... fail with EIO; "eof": return 0, as if the file ended there
//   FAULT_SYNC_LOG=FILE    append "fsync PATH" and "rename OLD NEW" for each call, in order
//
// Without these variables every call goes straight to the C library.
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

template <class Function>
Function next(const char* name) {
  return reinterpret_cast<Function>(::dlsym(RTLD_NEXT, name));
}

// The path behind `fd`, or "".
void path_of(int fd, char* path, std::size_t size) {
  char link[64];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t n = ::readlink(link, path, size - 1);
  path[n > 0 ? n : 0] = '\0';
}

void log_line(const char* kind, const char* a, const char* b) {
  const char* file = std::getenv("FAULT_SYNC_LOG");
  if (!file) return;
  const int fd = ::open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  char line[8192];
  const int n = std::snprintf(line, sizeof line, "%s %s%s%s\n", kind, a, b ? " " : "", b ? b : "");
  if (n > 0) {
    const ssize_t ignored = ::write(fd, line, static_cast<std::size_t>(n));
    (void)ignored;
  }
  ::close(fd);
}

int matching_reads = 0;

}  // namespace

extern "C" ssize_t read(int fd, void* buffer, std::size_t count) {
  static const auto real = next<ssize_t (*)(int, void*, std::size_t)>("read");
  const char* pattern = std::getenv("FAULT_READ_PATH");
  if (pattern && *pattern) {
    char path[4096];
    path_of(fd, path, sizeof path);
    if (std::strstr(path, pattern)) {
      const char* call = std::getenv("FAULT_READ_CALL");
      if (++matching_reads >= (call ? std::atoi(call) : 1)) {
        const char* kind = std::getenv("FAULT_READ_KIND");
        if (kind && std::strcmp(kind, "eof") == 0) return 0;
        errno = EIO;
        return -1;
      }
    }
  }
  return real(fd, buffer, count);
}

extern "C" int fsync(int fd) {
  static const auto real = next<int (*)(int)>("fsync");
  char path[4096];
  path_of(fd, path, sizeof path);
  log_line("fsync", path, nullptr);
  return real(fd);
}

extern "C" int rename(const char* from, const char* to) {
  static const auto real = next<int (*)(const char*, const char*)>("rename");
  log_line("rename", from, to);
  return real(from, to);
}
