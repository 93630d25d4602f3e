/// \file npy.hpp
/// \brief Reading and writing float32 `.npy` files (NumPy's format), with every size checked.
///
/// A `.npy` file is a 10-byte preamble (`\x93NUMPY`, version, header length), a text header
/// that is a Python dict literal, and the raw values:
/// \code
/// \x93NUMPY 01 00 <len:u16>  {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }   <values>
/// \endcode
/// `xt::load_npy` accepts a truncated file without a word (it reads whatever is there), so the
/// project reads every `.npy` file, checkpoints and test fixtures alike, through this small
/// reader: it parses the header itself and compares the file's size with what the shape needs.
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
  std::vector<std::size_t> shape;  ///< e.g. {512, 512}; empty for a scalar (rank 0)
  std::vector<float> values;       ///< product(shape) values, row-major (1 for a scalar)
};

/// Writes product(shape) floats from `data` as a version-1.0 `.npy` file (`<f4`, C order) that
/// `numpy.load` reads. Throws NpyError naming the path if it cannot be written completely.
void save_npy(const std::string& path, const float* data, const std::vector<std::size_t>& shape);

/// Reads a `.npy` file of little-endian float32 in C order. Throws NpyError naming the file for a
/// missing file, a bad magic string or header, another dtype, Fortran order, or a size that does
/// not match the shape (a truncated file, or trailing bytes).
NpyArray load_npy_file(const std::string& path);

}  // namespace tfm
