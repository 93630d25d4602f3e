#include "tfm/machinery/npy.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "tfm/support/printable.hpp"

namespace tfm {
namespace {

// The values are written and read as the machine holds them; '<f4' promises little-endian.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "npy.cpp assumes a little-endian machine");

const char kMagic[] = "\x93NUMPY";         // 6 bytes (plus the string's terminating zero)
constexpr std::size_t kPreambleSize = 10;  // magic (6) + version (2) + header length (2)
// numpy.load's own limit (numpy.lib.format._MAX_HEADER_SIZE since NumPy 1.24): a longer header
// "may not be safe to load". A float32 array's header is under 200 bytes at any rank NumPy allows.
constexpr std::size_t kMaxHeaderSize = 10000;

// A shape as Python writes a tuple: (), (5,), (2, 3).
std::string shape_tuple(const std::vector<std::size_t>& shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i)
    out += (i > 0 ? ", " : "") + std::to_string(shape[i]);
  return out + (shape.size() == 1 ? ",)" : ")");
}

// "'path': message", the form of every error below.
NpyError error(const std::string& path, const std::string& message) {
  return NpyError("'" + path + "' " + message);
}

}  // namespace

void save_npy(const std::string& path, const float* data, const std::vector<std::size_t>& shape) {
  std::string header =
      "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape_tuple(shape) + ", }";
  // NumPy's alignment rule: preamble + header, which ends in '\n', is a multiple of 64 bytes, so
  // that the values start aligned when the file is memory-mapped.
  const std::size_t unpadded = kPreambleSize + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  if (header.size() > 0xFFFF)
    throw error(path, "would need a header longer than .npy version 1.0 allows");
  std::size_t count = 1;
  for (std::size_t extent : shape) count *= extent;

  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw error(path, "cannot be opened for writing");
  const char version[2] = {1, 0};
  const char header_len[2] = {static_cast<char>(header.size() & 0xFF),
                              static_cast<char>(header.size() >> 8)};
  out.write(kMagic, 6);
  out.write(version, 2);
  out.write(header_len, 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(reinterpret_cast<const char*>(data),
            static_cast<std::streamsize>(count * sizeof(float)));
  out.close();  // close() flushes; an error here (a full disk) must not go unnoticed
  if (!out)
    throw error(path,
                std::string("could not be written completely (") + std::strerror(errno) + ")");
}

namespace {

// What the header says: the three keys NumPy always writes.
struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<std::size_t> shape;
};

// A parser of the header's dict literal, `{'descr': '<f4', 'fortran_order': False, 'shape':
// (2, 3), }` followed by spaces and a newline: one pass, no recursion, no backtracking, so its
// cost and its stack do not grow with the header's length. It takes what NumPy writes with the
// freedom numpy.load's literal_eval allows (any spacing and key order, ' or " quotes, trailing
// commas) and rejects everything else with the problem and its byte offset in the header.
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& path) : text_(text), path_(path) {}

  NpyHeader parse() {
    NpyHeader header;
    bool has_descr = false, has_fortran = false, has_shape = false;
    std::string unknown_key;
    skip_space();
    expect('{', "the header to start with '{'");
    skip_space();
    while (peek() != '}') {
      const std::size_t key_at = at_;
      const std::string key = string_literal("a key in quotes");
      skip_space();
      expect(':', "':' after the key '" + printable(key) + "'");
      skip_space();
      bool* seen = key == "descr"           ? &has_descr
                   : key == "fortran_order" ? &has_fortran
                   : key == "shape"         ? &has_shape
                                            : nullptr;
      if (seen && *seen) fail("repeats the key '" + printable(key) + "'", key_at);
      if (seen) *seen = true;
      if (key == "descr") {
        header.descr = string_literal("the dtype in quotes after 'descr'");
      } else if (key == "fortran_order") {
        header.fortran_order = boolean("True or False after 'fortran_order'");
      } else if (key == "shape") {
        header.shape = tuple();
      } else {
        if (unknown_key.empty()) unknown_key = key;
        skip_value();
      }
      skip_space();
      if (peek() == ',') {  // a comma after the last entry is allowed, as in Python
        ++at_;
        skip_space();
      } else if (peek() != '}') {
        fail("expected ',' or '}' after the value of '" + printable(key) + "'", at_);
      }
    }
    ++at_;  // '}'
    skip_space();
    if (at_ != text_.size()) fail("has " + describe(at_) + " after the closing '}'", at_);
    // The missing keys first, then the unknown ones: "no 'shape'" says more than "unknown 'shapa'".
    const std::string extra =
        unknown_key.empty() ? "" : " (it has an unknown key '" + printable(unknown_key) + "')";
    if (!has_descr) throw error(path_, "has no plain dtype ('descr') in its header" + extra);
    if (!has_fortran) throw error(path_, "has no 'fortran_order' in its header" + extra);
    if (!has_shape) throw error(path_, "has no valid shape in its header" + extra);
    if (!unknown_key.empty())
      throw error(path_,
                  "has an unknown key '" + printable(unknown_key) +
                      "' in its header (expected only 'descr', 'fortran_order' and 'shape')");
    return header;
  }

 private:
  char peek() const { return at_ < text_.size() ? text_[at_] : '\0'; }
  bool at_end() const { return at_ >= text_.size(); }

  [[noreturn]] void fail(const std::string& problem, std::size_t where) const {
    throw error(path_, "has a malformed header: " + problem + " at byte " + std::to_string(where) +
                           " of its " + std::to_string(text_.size()) + "-byte header");
  }

  // "the end of the header" or "'x'" (a control byte as \xNN), for the messages.
  std::string describe(std::size_t where) const {
    if (where >= text_.size()) return "the end of the header";
    return "'" + printable(text_.substr(where, 1)) + "'";
  }

  // Python's whitespace between tokens; NumPy pads the header with spaces and ends it with '\n'.
  void skip_space() {
    while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r'))
      ++at_;
  }

  void expect(char c, const std::string& what) {
    if (peek() != c || at_end()) fail("expected " + what + ", found " + describe(at_), at_);
    ++at_;
  }

  // 'text' or "text", without escapes (no key or dtype NumPy writes needs one).
  std::string string_literal(const std::string& what) {
    const char quote = peek();
    if (at_end() || (quote != '\'' && quote != '"'))
      fail("expected " + what + ", found " + describe(at_), at_);
    const std::size_t begin = ++at_;
    while (!at_end() && peek() != quote) {
      if (peek() == '\\' || peek() == '\n')
        fail("a string with an escape or a line break is not supported", at_);
      ++at_;
    }
    if (at_end()) fail("a string is not closed", begin - 1);
    return text_.substr(begin, at_++ - begin);
  }

  bool word(const char* w) {
    const std::size_t n = std::strlen(w);
    if (text_.compare(at_, n, w) != 0) return false;
    at_ += n;
    return true;
  }

  bool boolean(const std::string& what) {
    if (word("True")) return true;
    if (word("False")) return false;
    fail("expected " + what + ", found " + describe(at_), at_);
  }

  // A whole number: 1 to 18 digits (more could not be a size a file holds).
  std::size_t number() {
    const std::size_t begin = at_;
    while (!at_end() && peek() >= '0' && peek() <= '9') ++at_;
    if (at_ == begin) fail("expected a whole number in the shape, found " + describe(at_), at_);
    if (at_ - begin > 18)
      fail("the shape has an extent of " + std::to_string(at_ - begin) + " digits", begin);
    return std::stoull(text_.substr(begin, at_ - begin));
  }

  // (), (5,), (2, 3), (2, 3,): a tuple of whole numbers; (5) is a number, not a tuple.
  std::vector<std::size_t> tuple() {
    std::vector<std::size_t> shape;
    expect('(', "the shape as a tuple after 'shape', e.g. (2, 3),");
    skip_space();
    bool trailing_comma = false;
    while (peek() != ')') {
      shape.push_back(number());
      skip_space();
      trailing_comma = false;
      if (peek() == ',') {
        trailing_comma = true;
        ++at_;
        skip_space();
      } else if (peek() != ')') {
        fail("expected ',' or ')' in the shape, found " + describe(at_), at_);
      }
    }
    if (shape.size() == 1 && !trailing_comma)
      fail("the shape (n) is a number, not a tuple; NumPy writes (n,)", at_);
    ++at_;  // ')'
    return shape;
  }

  // The value of an unknown key: a string, True/False or a tuple, so that the key can be named.
  void skip_value() {
    if (peek() == '\'' || peek() == '"') {
      string_literal("a value");
    } else if (peek() == '(') {
      tuple();
    } else {
      boolean("a string, True, False or a tuple");
    }
  }

  const std::string& text_;
  const std::string& path_;
  std::size_t at_ = 0;
};

}  // namespace

namespace {

// What a header says, checked against the size of the whole file: the array's shape, how many
// values it holds and where they start.
struct NpyLayout {
  std::vector<std::size_t> shape;
  std::size_t count = 1;
  std::size_t data_offset = 0;
};

// `head` is the file's beginning, at least up to the end of its header (the whole file if it is
// shorter); `file_size` is the size of the whole file. Everything is checked before a value is
// read, so that a file whose header does not match its size costs no more than its header.
NpyLayout read_layout(const std::string& head, std::size_t file_size, const std::string& path) {
  // Preamble: magic, version (1.0 has a 2-byte header length; 2.0 and 3.0 a 4-byte one).
  if (head.size() < kPreambleSize || head.compare(0, 6, kMagic, 6) != 0)
    throw error(path, "is not a .npy file (bad magic string)");
  const auto byte = [&](std::size_t i) { return std::size_t{static_cast<unsigned char>(head[i])}; };
  const std::size_t major = byte(6), minor = byte(7);
  if (major < 1 || major > 3 || minor != 0)  // numpy knows 1.0, 2.0 and 3.0 only
    throw error(
        path, "has an unknown .npy version " + std::to_string(major) + "." + std::to_string(minor));
  std::size_t header_len = byte(8) | (byte(9) << 8);
  std::size_t offset = kPreambleSize;
  if (major > 1) {
    if (head.size() < kPreambleSize + 2) throw error(path, "is truncated in its header");
    header_len |= (byte(10) << 16) | (byte(11) << 24);
    offset += 2;
  }
  if (header_len > kMaxHeaderSize)
    throw error(path, "has a " + std::to_string(header_len) +
                          "-byte header; numpy.load refuses headers over " +
                          std::to_string(kMaxHeaderSize) +
                          " bytes and a float32 array needs under 200, so this "
                          "file was written by neither NumPy nor this program");
  if (offset + header_len > head.size()) throw error(path, "is truncated in its header");

  // Header: a Python dict literal with the three keys NumPy always writes.
  const NpyHeader header = HeaderParser(head.substr(offset, header_len), path).parse();
  if (header.descr != "<f4")
    throw error(path,
                "holds dtype '" + printable(header.descr) + "', expected float32 ('<f4')" +
                    (header.descr == "<f8" ? " (convert with array.astype(numpy.float32))" : ""));
  if (header.fortran_order)
    throw error(path, "is in Fortran order; only C order is read (numpy.ascontiguousarray)");

  NpyLayout layout;
  for (const std::size_t extent : header.shape) {
    if (extent != 0 &&
        layout.count > std::numeric_limits<std::size_t>::max() / sizeof(float) / extent)
      throw error(path, "declares an impossibly large shape " + shape_tuple(header.shape));
    layout.count *= extent;
  }
  layout.shape = header.shape;
  layout.data_offset = offset + header_len;

  // The check xt::load_npy does not make: the file must hold exactly the values the shape needs.
  // (count * 4 cannot overflow, by the loop above; the sum could only for an absurd shape.)
  const std::size_t data_bytes = layout.count * sizeof(float);
  if (data_bytes > std::numeric_limits<std::size_t>::max() - layout.data_offset)
    throw error(path, "declares an impossibly large shape " + shape_tuple(header.shape));
  const std::size_t expected = layout.data_offset + data_bytes;
  if (file_size != expected)
    throw error(
        path,
        "has " + std::to_string(file_size) + " bytes but its header (float32, shape " +
            shape_tuple(layout.shape) + ") needs " + std::to_string(expected) +
            (file_size < expected ? ": the file is truncated" : ": the file has trailing bytes"));
  return layout;
}

// The array a layout describes, its values still to be filled.
NpyArray array_for(const NpyLayout& layout) {
  NpyArray array;
  array.shape = layout.shape;
  array.values.resize(layout.count);
  return array;
}

}  // namespace

NpyArray parse_npy(const std::string& bytes, const std::string& path) {
  const NpyLayout layout = read_layout(bytes, bytes.size(), path);
  NpyArray array = array_for(layout);
  if (layout.count > 0)
    std::memcpy(array.values.data(), bytes.data() + layout.data_offset,
                layout.count * sizeof(float));
  return array;
}

NpyArray load_npy_file(const std::string& path) {
  if (std::filesystem::is_directory(path)) throw error(path, "is a directory, not a .npy file");
  std::error_code ec;  // a pipe would hang the read, a device such as /dev/zero never ends
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
    throw error(path, "is not a regular file (a pipe or a device?)");
  std::ifstream in(path, std::ios::binary | std::ios::ate);  // opened at the end: tellg() = size
  if (!in) throw error(path, "cannot be opened (missing file?)");
  const std::streamoff size = in.tellg();
  if (size < 0) throw error(path, "could not be read");
  const auto file_size = static_cast<std::size_t>(size);
  in.seekg(0);
  // The header first (it cannot be longer than this), checked against the file's size: a file of
  // gigabytes whose header promises six values is refused before its values are read.
  std::string head(std::min(file_size, kPreambleSize + 2 + kMaxHeaderSize), '\0');
  if (!in.read(head.data(), static_cast<std::streamsize>(head.size())))
    throw error(path, "could not be read");
  const NpyLayout layout = read_layout(head, file_size, path);
  NpyArray array = array_for(layout);
  in.seekg(static_cast<std::streamoff>(layout.data_offset));
  if (layout.count > 0 && !in.read(reinterpret_cast<char*>(array.values.data()),
                                   static_cast<std::streamsize>(layout.count * sizeof(float))))
    throw error(path, "could not be read (did it shrink while it was read?)");
  return array;
}

std::string index_in_shape(const std::vector<std::size_t>& shape, std::size_t flat) {
  // Last axis fastest (C order): peel the axes off from the right.
  std::vector<std::size_t> index(shape.size());
  for (std::size_t axis = shape.size(); axis-- > 0;) {
    if (shape[axis] == 0) break;  // an empty array has no entries to point at
    index[axis] = flat % shape[axis];
    flat /= shape[axis];
  }
  std::string text = "[";
  for (std::size_t axis = 0; axis < index.size(); ++axis)
    text += (axis ? ", " : "") + std::to_string(index[axis]);
  return text + "]";
}

void require_finite(const NpyArray& array, const std::string& path) {
  const std::size_t count = array.values.size();
  std::size_t flat = 0;
  while (flat < count && std::isfinite(array.values[flat])) ++flat;
  if (flat == count) return;
  const float value = array.values[flat];
  throw error(path, "holds " +
                        std::string(std::isnan(value) ? "NaN"
                                    : value > 0       ? "+inf"
                                                      : "-inf") +
                        " at index " + index_in_shape(array.shape, flat) + " (value " +
                        std::to_string(flat + 1) + " of " + std::to_string(count) + ")");
}

}  // namespace tfm
