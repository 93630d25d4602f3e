/// \file npy.hpp
/// \brief Machinery (not a lesson): reading and writing float32 `.npy` files (NumPy's format), with every size checked.
///
/// A `.npy` file is a 10-byte preamble (`\x93NUMPY`, version, header length), a text header
/// that is a Python dict literal, and the raw values:
/// \code
/// \x93NUMPY 01 00 <len:u16>  {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }   <values>
/// \endcode
/// `xt::load_npy` accepts a truncated file without a word (it reads whatever is there), so the
/// project reads every `.npy` file, checkpoints and test fixtures alike, through this small
/// reader: it parses the header itself and compares the file's size with what the shape needs.
///
/// The header is read by a small hand-written parser of exactly the dict literal NumPy writes
/// (three keys, a string, a boolean and a tuple of whole numbers), not by a regular expression:
/// `std::regex` recurses once per character it matches, so a long header (version 1.0 allows
/// 65,535 bytes) overflowed the stack. Anything else in the header is an NpyError that says what
/// was expected, and where.
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
/// not match the shape (a truncated file, or trailing bytes). The header is checked against the
/// file's size before any value is read: a huge file with a small header costs only its header.
NpyArray load_npy_file(const std::string& path);

/// The reader of load_npy_file on bytes already in memory: `bytes` is a whole `.npy` file, `name`
/// names it in the messages, which are those of load_npy_file. For the fuzz target and the tests.
NpyArray parse_npy(const std::string& bytes, const std::string& name);

/// Throws NpyError naming `name`, the first value that is NaN or infinite and its index (as
/// `[i, j]` in the array's shape and as a count), unless every value is finite. The reader itself
/// reads NaN and infinity back (they are floats like any other); a weight that is NaN, though,
/// makes every logit NaN and decoding then silently produces nothing, so the checkpoint loader
/// calls this on every tensor it reads.
void require_finite(const NpyArray& array, const std::string& name);

/// Entry `flat` (C order) of an array of `shape`, as its index: `[1, 2]` for entry 5 of shape
/// {2, 3}; `[]` for a scalar. For messages that point at one value.
std::string index_in_shape(const std::vector<std::size_t>& shape, std::size_t flat);

}  // namespace tfm
