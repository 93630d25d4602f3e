#include "tfm/npy.hpp"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <regex>

namespace tfm {
namespace {

const char kMagic[] = "\x93NUMPY";

std::string shape_tuple(const std::vector<std::size_t>& shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) out += std::to_string(shape[i]) + (shape.size() == 1 || i + 1 < shape.size() ? "," : "");
  return out + ")";
}

}  // namespace

void save_npy(const std::string& path, const float* data, const std::vector<std::size_t>& shape) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape_tuple(shape) + ", }";
  // Magic (6) + version (2) + header length (2) + header, padded with spaces to a multiple of 64,
  // ending in '\n' (NumPy's alignment rule).
  const std::size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::size_t count = 1;
  for (std::size_t extent : shape) count *= extent;

  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw NpyError("cannot open '" + path + "' for writing");
  const std::uint16_t header_len = static_cast<std::uint16_t>(header.size());
  const char version[2] = {1, 0};
  const char len_bytes[2] = {static_cast<char>(header_len & 0xFF), static_cast<char>(header_len >> 8)};
  out.write(kMagic, 6);
  out.write(version, 2);
  out.write(len_bytes, 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(count * sizeof(float)));
  out.flush();
  if (!out) throw NpyError("could not write all of '" + path + "' (disk full?)");
}

NpyArray load_npy_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw NpyError("cannot open '" + path + "'");
  in.seekg(0, std::ios::end);
  const auto file_size = static_cast<std::size_t>(in.tellg());
  in.seekg(0);

  char preamble[10];
  if (!in.read(preamble, 10) || std::memcmp(preamble, kMagic, 6) != 0)
    throw NpyError("'" + path + "' is not a .npy file (bad magic string)");
  if (preamble[6] != 1 && preamble[6] != 2 && preamble[6] != 3)
    throw NpyError("'" + path + "' has an unknown .npy version " + std::to_string(int(preamble[6])));
  std::size_t header_len = static_cast<unsigned char>(preamble[8]) | (static_cast<unsigned char>(preamble[9]) << 8);
  std::size_t offset = 10;
  if (preamble[6] != 1) {  // versions 2 and 3 have a 4-byte header length
    char more[2];
    if (!in.read(more, 2)) throw NpyError("'" + path + "' is truncated in its header");
    header_len |= (static_cast<std::size_t>(static_cast<unsigned char>(more[0])) << 16) |
                  (static_cast<std::size_t>(static_cast<unsigned char>(more[1])) << 24);
    offset = 12;
  }
  if (offset + header_len > file_size) throw NpyError("'" + path + "' is truncated in its header");
  std::string header(header_len, '\0');
  in.read(header.data(), static_cast<std::streamsize>(header_len));

  std::smatch m;
  if (!std::regex_search(header, m, std::regex("'descr':\\s*'([^']*)'")))
    throw NpyError("'" + path + "' has no dtype in its header");
  if (m[1] != "<f4")
    throw NpyError("'" + path + "' holds dtype " + m[1].str() + ", expected float32 ('<f4')");
  if (std::regex_search(header, std::regex("'fortran_order':\\s*True")))
    throw NpyError("'" + path + "' is in Fortran order; only C order is read");
  if (!std::regex_search(header, m, std::regex("'shape':\\s*\\(([^)]*)\\)")))
    throw NpyError("'" + path + "' has no shape in its header");

  NpyArray array;
  std::size_t count = 1;
  const std::string dims = m[1];
  const std::regex number("\\d+");
  for (std::sregex_iterator it(dims.begin(), dims.end(), number), end; it != end; ++it) {
    array.shape.push_back(std::stoull(it->str()));
    count *= array.shape.back();
  }
  const std::size_t expected = offset + header_len + count * sizeof(float);
  if (file_size != expected)
    throw NpyError("'" + path + "' has " + std::to_string(file_size) + " bytes but its header (shape " +
                   shape_tuple(array.shape) + ") needs " + std::to_string(expected) +
                   (file_size < expected ? ": the file is truncated" : ": the file has trailing bytes"));
  array.values.resize(count);
  in.read(reinterpret_cast<char*>(array.values.data()), static_cast<std::streamsize>(count * sizeof(float)));
  if (!in) throw NpyError("could not read the data of '" + path + "'");
  return array;
}

}  // namespace tfm
