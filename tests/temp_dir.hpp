// A scratch directory for the tests that write files (checkpoints, .npy files).
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

namespace tfm::testing {

/// A fresh directory `tfm_<group>_<pid>_<name>` in the temporary directory, unique to this
/// process, emptied on creation and removed (with its contents) at the end of the scope.
struct TempDir {
  TempDir(const std::string& group, const std::string& name)
      : path(std::filesystem::temp_directory_path() /
             ("tfm_" + group + "_" + std::to_string(::getpid()) + "_" + name)) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  /// The path of `name` inside the directory.
  std::string file(const std::string& name) const { return (path / name).string(); }

  std::filesystem::path path;
};

}  // namespace tfm::testing
