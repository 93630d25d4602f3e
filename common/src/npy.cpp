#include "tfm/npy.hpp"

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <regex>

namespace tfm {
namespace {

// The values are written and read as the machine holds them; '<f4' promises little-endian.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "npy.cpp assumes a little-endian machine");

const char kMagic[] = "\x93NUMPY";  // 6 bytes (plus the string's terminating zero)
constexpr std::size_t kPreambleSize = 10;  // magic (6) + version (2) + header length (2)

// A shape as Python writes a tuple: (), (5,), (2, 3).
std::string shape_tuple(const std::vector<std::size_t>& shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i > 0 ? ", " : "") + std::to_string(shape[i]);
  return out + (shape.size() == 1 ? ",)" : ")");
}

// "'path': message", the form of every error below.
NpyError error(const std::string& path, const std::string& message) {
  return NpyError("'" + path + "' " + message);
}

}  // namespace

// [npy save]
void save_npy(const std::string& path, const float* data, const std::vector<std::size_t>& shape) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape_tuple(shape) + ", }";
  // NumPy's alignment rule: preamble + header, which ends in '\n', is a multiple of 64 bytes, so
  // that the values start aligned when the file is memory-mapped.
  const std::size_t unpadded = kPreambleSize + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  if (header.size() > 0xFFFF) throw error(path, "would need a header longer than .npy version 1.0 allows");
  std::size_t count = 1;
  for (std::size_t extent : shape) count *= extent;

  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw error(path, "cannot be opened for writing");
  const char version[2] = {1, 0};
  const char header_len[2] = {static_cast<char>(header.size() & 0xFF), static_cast<char>(header.size() >> 8)};
  out.write(kMagic, 6);
  out.write(version, 2);
  out.write(header_len, 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(count * sizeof(float)));
  out.close();  // close() flushes; an error here (a full disk) must not go unnoticed
  if (!out) throw error(path, "could not be written completely (disk full? file too large?)");
}
// [npy save]

// [npy load]
NpyArray load_npy_file(const std::string& path) {
  if (std::filesystem::is_directory(path)) throw error(path, "is a directory, not a .npy file");
  std::ifstream in(path, std::ios::binary | std::ios::ate);  // opened at the end: tellg() = size
  if (!in) throw error(path, "cannot be opened (missing file?)");
  const auto file_size = static_cast<std::size_t>(in.tellg());
  in.seekg(0);

  // Preamble: magic, version (1.0 has a 2-byte header length; 2.0 and 3.0 a 4-byte one).
  unsigned char preamble[kPreambleSize + 2] = {};
  if (!in.read(reinterpret_cast<char*>(preamble), kPreambleSize) || std::memcmp(preamble, kMagic, 6) != 0)
    throw error(path, "is not a .npy file (bad magic string)");
  const int major = preamble[6];
  if (major < 1 || major > 3) throw error(path, "has an unknown .npy version " + std::to_string(major));
  std::size_t header_len = preamble[8] | (std::size_t{preamble[9]} << 8);
  std::size_t offset = kPreambleSize;
  if (major > 1) {
    if (!in.read(reinterpret_cast<char*>(preamble + kPreambleSize), 2))
      throw error(path, "is truncated in its header");
    header_len |= (std::size_t{preamble[10]} << 16) | (std::size_t{preamble[11]} << 24);
    offset += 2;
  }
  if (offset + header_len > file_size) throw error(path, "is truncated in its header");
  std::string header(header_len, '\0');
  in.read(header.data(), static_cast<std::streamsize>(header_len));

  // Header: a Python dict literal; the three keys NumPy always writes are all we need.
  static const std::regex descr_key("'descr':\\s*'([^']*)'");
  static const std::regex fortran_key("'fortran_order':\\s*(True|False)");
  static const std::regex shape_key("'shape':\\s*\\(([\\d\\s,]*)\\)");
  static const std::regex number("\\d+");
  std::smatch m;
  if (!std::regex_search(header, m, descr_key)) throw error(path, "has no plain dtype ('descr') in its header");
  if (m[1] != "<f4")
    throw error(path, "holds dtype '" + m[1].str() + "', expected float32 ('<f4')" +
                          (m[1] == "<f8" ? " (convert with array.astype(numpy.float32))" : ""));
  if (!std::regex_search(header, m, fortran_key)) throw error(path, "has no 'fortran_order' in its header");
  if (m[1] == "True") throw error(path, "is in Fortran order; only C order is read (numpy.ascontiguousarray)");
  if (!std::regex_search(header, m, shape_key)) throw error(path, "has no valid shape in its header");

  NpyArray array;
  const std::string dims = m[1];
  std::size_t count = 1;
  for (std::sregex_iterator it(dims.begin(), dims.end(), number), end; it != end; ++it) {
    const std::string digits = it->str();
    const std::size_t extent = digits.size() > 15 ? std::numeric_limits<std::size_t>::max() : std::stoull(digits);
    if (extent != 0 && count > std::numeric_limits<std::size_t>::max() / sizeof(float) / extent)
      throw error(path, "declares an impossibly large shape " + shape_tuple(array.shape) + "...");
    array.shape.push_back(extent);
    count *= extent;
  }

  // The check xt::load_npy does not make: the file must hold exactly the values the shape needs.
  const std::size_t expected = offset + header_len + count * sizeof(float);
  if (file_size != expected)
    throw error(path, "has " + std::to_string(file_size) + " bytes but its header (float32, shape " +
                          shape_tuple(array.shape) + ") needs " + std::to_string(expected) +
                          (file_size < expected ? ": the file is truncated" : ": the file has trailing bytes"));
  array.values.resize(count);
  in.read(reinterpret_cast<char*>(array.values.data()), static_cast<std::streamsize>(count * sizeof(float)));
  if (!in) throw error(path, "could not be read");
  return array;
}
// [npy load]

}  // namespace tfm
