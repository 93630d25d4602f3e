/// \file npy.hpp
/// \brief Reading and writing float32 `.npy` files (NumPy's format), with every size checked.
///
/// `xt::load_npy` accepts a truncated file without a word, so checkpoints use this small
/// reader instead: it parses the header itself and compares the file's size with the shape.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace tfm {

/// Thrown for an unreadable, malformed or truncated file; the message names the file.
class NpyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A float32 array read from a `.npy` file: its shape and its values in C order.
struct NpyArray {
  std::vector<std::size_t> shape;  ///< e.g. {512, 512}
  std::vector<float> values;       ///< product(shape) values, row-major
};

/// Writes `count` floats with `shape` as a version-1.0 `.npy` file (`<f4`, C order).
/// Throws NpyError naming the path if it cannot be written completely.
void save_npy(const std::string& path, const float* data, const std::vector<std::size_t>& shape);

/// Reads a `.npy` file of little-endian float32 in C order. Throws NpyError naming the file for a
/// missing file, a bad magic string or header, another dtype, Fortran order, or a size that does
/// not match the shape (a truncated or padded file).
NpyArray load_npy_file(const std::string& path);

}  // namespace tfm
