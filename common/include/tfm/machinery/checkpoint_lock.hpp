/// \file checkpoint_lock.hpp
/// \brief Machinery (not a lesson): one writer per checkpoint. A run that will save to `DIR` (and to the step
/// checkpoints `DIR-stepS` beside it) holds a lock on the file `DIR.lock` from before it trains
/// until it ends, so that a second run saving to the same place is refused before it trains, with
/// the other process named, instead of both "saving" and one model silently replacing the other.
///
/// The lock is a POSIX record lock (fcntl F_SETLK): the kernel releases it when its process ends,
/// however it ends, so a lock left by a run that was killed is no obstacle. The file `DIR.lock`
/// stays beside the checkpoint (empty; removing it while another run may be opening it would let
/// two runs lock two different files).
#pragma once

#include <string>

namespace tfm {

/// Holds the lock of the checkpoint `dir` while it lives.
class CheckpointLock {
 public:
  /// Takes the lock on `DIR.lock` (DIR as tfm::directory_target makes it: absolute, without a
  /// trailing '/'). Throws CheckpointError if another process holds it ("another run (pid N) is
  /// saving to ..."), or if the lock file cannot be made (naming it and the system's reason).
  explicit CheckpointLock(const std::string& dir);
  ~CheckpointLock();
  CheckpointLock(const CheckpointLock&) = delete;
  CheckpointLock& operator=(const CheckpointLock&) = delete;

  /// The lock file.
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace tfm
