#include "tfm/machinery/checkpoint_lock.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tfm/machinery/checkpoint.hpp"
#include "tfm/machinery/safe_directory.hpp"

namespace tfm {

CheckpointLock::CheckpointLock(const std::string& dir) {
  try {
    path_ = directory_target(dir, {"checkpoint", "config.txt", {}}).string() + ".lock";
  } catch (const SafeDirectoryError& e) {
    throw CheckpointError(e.what());
  }
  // Opened without O_TRUNC: a file of that name that is not ours keeps what it holds.
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw CheckpointError("cannot save a checkpoint to '" + dir + "': its lock file '" + path_ +
                          "' cannot be opened: " + std::strerror(errno));
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;  // the whole file
  if (::fcntl(fd_, F_SETLK, &lock) == 0) return;
  const int error = errno;
  struct flock holder {};
  holder.l_type = F_WRLCK;
  holder.l_whence = SEEK_SET;
  const bool named = ::fcntl(fd_, F_GETLK, &holder) == 0 && holder.l_type != F_UNLCK;
  ::close(fd_);
  fd_ = -1;
  if (error == EACCES || error == EAGAIN)
    throw CheckpointError(
        "cannot save a checkpoint to '" + dir + "': another run" +
        (named ? " (pid " + std::to_string(holder.l_pid) + ")" : std::string()) +
        " is saving there (it holds '" + path_ +
        "'); two runs saving to one place would replace each other's model: wait for it to end, "
        "or choose another --save");
  throw CheckpointError("cannot save a checkpoint to '" + dir + "': its lock file '" + path_ +
                        "' cannot be locked: " + std::strerror(error));
}

CheckpointLock::~CheckpointLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

}  // namespace tfm
