// The .npy reader and writer: exact round trips at every rank, agreement with files numpy wrote,
// and a clear error naming the file for everything it must refuse (xt::load_npy notices none of
// truncation or trailing bytes).
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "temp_dir.hpp"
#include "tfm/machinery/npy.hpp"

using namespace tfm;
using Catch::Contains;
namespace fs = std::filesystem;

namespace {

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

std::string numpy_fixture(const std::string& name) {
  return testing::fixture_path("checkpoint/npy/" + name);
}

// The values numpy wrote into the f32_2x3 fixtures: arange(6).reshape(2, 3) * 0.25 - 0.5.
std::vector<float> quarter_steps() {
  return {-0.5f, -0.25f, 0.0f, 0.25f, 0.5f, 0.75f};
}

}  // namespace

TEST_CASE("npy: save then load gives back every bit, at every rank", "[npy]") {
  testing::TempDir dir("npy", "round_trip");
  // Values a text format would mangle: -0, a subnormal, the extremes, infinity and a NaN.
  const std::vector<float> pool = {1.0f / 3.0f,
                                   -0.0f,
                                   1e-40f,
                                   std::numeric_limits<float>::max(),
                                   -std::numeric_limits<float>::infinity(),
                                   std::nanf(""),
                                   -7.25f,
                                   42.0f};
  const std::vector<std::vector<std::size_t>> shapes = {{},        {5},          {2, 3},
                                                        {2, 1, 3}, {1, 2, 2, 2}, {0, 3}};
  for (const auto& shape : shapes) {
    std::size_t count = 1;
    for (std::size_t extent : shape) count *= extent;
    std::vector<float> values(count);
    for (std::size_t i = 0; i < count; ++i) values[i] = pool[i % pool.size()];
    INFO("shape " << shape_string(shape));
    const std::string path = dir.file("rank" + std::to_string(shape.size()) + ".npy");

    save_npy(path, values.data(), shape);
    const NpyArray loaded = load_npy_file(path);
    CHECK(loaded.shape == shape);
    REQUIRE(loaded.values.size() == count);
    // memcmp with a null pointer is undefined even for 0 bytes, and an empty vector may hold one.
    if (count > 0)
      CHECK(std::memcmp(loaded.values.data(), values.data(), count * sizeof(float)) == 0);
    // NumPy's layout: the values start at a multiple of 64 bytes, right after the header.
    CHECK((fs::file_size(path) - count * sizeof(float)) % 64 == 0);
  }
}

TEST_CASE("npy: files written by numpy read back as numpy wrote them", "[npy]") {
  const NpyArray matrix = load_npy_file(numpy_fixture("f32_2x3.npy"));
  CHECK(matrix.shape == std::vector<std::size_t>{2, 3});
  CHECK(matrix.values == quarter_steps());

  const NpyArray scalar = load_npy_file(numpy_fixture("f32_scalar.npy"));
  CHECK(scalar.shape.empty());
  CHECK(scalar.values == std::vector<float>{-1.5f});

  // Version 2.0 (a 4-byte header length), which numpy writes for very long headers.
  const NpyArray v2 = load_npy_file(numpy_fixture("f32_v2_4.npy"));
  CHECK(v2.shape == std::vector<std::size_t>{4});
  CHECK(v2.values == std::vector<float>{1.0f, -2.0f, 0.5f, 3.0f});

  // And ours is numpy's file, byte for byte: the same header text, padded with spaces to the
  // same 64-byte boundary, then the same little-endian floats.
  testing::TempDir dir("npy", "numpy");
  const std::vector<float> values = quarter_steps();
  save_npy(dir.file("ours.npy"), values.data(), {2, 3});
  CHECK(read_bytes(dir.file("ours.npy")) == read_bytes(numpy_fixture("f32_2x3.npy")));
}

TEST_CASE("npy: every unreadable file is an error naming the file and the problem", "[npy]") {
  testing::TempDir dir("npy", "errors");
  const std::vector<float> values = quarter_steps();
  const std::string good = dir.file("good.npy");
  save_npy(good, values.data(), {2, 3});
  const std::string bytes = read_bytes(good);

  SECTION("missing file") {
    const std::string path = dir.file("absent.npy");
    CHECK_THROWS_WITH(load_npy_file(path), Contains(path) && Contains("cannot be opened"));
  }
  SECTION("a directory") {
    CHECK_THROWS_WITH(load_npy_file(dir.path.string()),
                      Contains(dir.path.string()) && Contains("directory"));
  }
  SECTION("bad magic string") {
    const std::string path = dir.file("text.npy");
    write_bytes(path, "d_model=512\nn_heads=8\n");
    CHECK_THROWS_WITH(load_npy_file(path), Contains(path) && Contains("bad magic string"));
  }
  SECTION("another dtype: float64 written by numpy") {
    const std::string path = numpy_fixture("f64_2x3.npy");
    CHECK_THROWS_WITH(load_npy_file(path),
                      Contains(path) && Contains("dtype '<f8'") && Contains("float32"));
  }
  SECTION("Fortran order written by numpy") {
    const std::string path = numpy_fixture("f32_fortran_3x2.npy");
    CHECK_THROWS_WITH(load_npy_file(path), Contains(path) && Contains("Fortran order"));
  }
  SECTION("truncated by a few bytes") {
    const std::string path = dir.file("truncated.npy");
    write_bytes(path, bytes.substr(0, bytes.size() - 3));
    CHECK_THROWS_WITH(load_npy_file(path), Contains(path) &&
                                               Contains("needs " + std::to_string(bytes.size())) &&
                                               Contains("truncated"));
  }
  SECTION("truncated inside the header") {
    const std::string path = dir.file("stub.npy");
    write_bytes(path, bytes.substr(0, 40));
    CHECK_THROWS_WITH(load_npy_file(path), Contains(path) && Contains("truncated in its header"));
  }
  SECTION("trailing bytes") {
    const std::string path = dir.file("padded.npy");
    write_bytes(path, bytes + std::string(2, '\0'));
    CHECK_THROWS_WITH(load_npy_file(path), Contains(path) && Contains("trailing bytes"));
  }
  SECTION("a huge file with a small header: refused before its values are read") {
    // 64 GiB of holes (no disk used): reading it whole first would fail to allocate, or take
    // minutes, before the header could say that six values were promised.
    const std::string path = dir.file("huge.npy");
    write_bytes(path, bytes);
    std::filesystem::resize_file(path, std::uintmax_t{64} << 30);
    CHECK_THROWS_WITH(load_npy_file(path), Contains(path) && Contains("68719476736 bytes") &&
                                               Contains("trailing bytes"));
  }
  SECTION("a header without a shape") {
    const std::string path = dir.file("no_shape.npy");
    std::string broken = bytes;
    broken.replace(broken.find("'shape'"), 7, "'shapa'");
    write_bytes(path, broken);
    CHECK_THROWS_WITH(load_npy_file(path), Contains(path) && Contains("no valid shape"));
  }
  SECTION("a version numpy does not have: 1.5") {
    const std::string path = dir.file("v15.npy");
    std::string edited = bytes;
    edited[7] = 5;
    write_bytes(path, edited);
    CHECK_THROWS_WITH(load_npy_file(path), Contains(path) && Contains("unknown .npy version 1.5"));
  }
  SECTION("a pipe, which would never end a read") {
    const std::string path = dir.file("fifo.npy");
    REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
    CHECK_THROWS_WITH(load_npy_file(path), Contains(path) && Contains("not a regular file"));
  }
  SECTION("a device: /dev/zero") {
    CHECK_THROWS_WITH(load_npy_file("/dev/zero"), Contains("not a regular file"));
  }
  SECTION("an unwritable path") {
    const std::string path = dir.file("no_such_folder/out.npy");
    CHECK_THROWS_WITH(save_npy(path, values.data(), {2, 3}),
                      Contains(path) && Contains("for writing"));
  }
}

// ---- bad input: the header parser, non-finite values ------------------------------------------

namespace {

// A version-1.0 .npy file around `header` (taken as is: no padding, no '\n' added) and `values`.
std::string npy_bytes(const std::string& header, const std::vector<float>& values) {
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
  bytes += static_cast<char>(header.size() & 0xFF);
  bytes += static_cast<char>((header.size() >> 8) & 0xFF);
  bytes += header;
  bytes.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
  return bytes;
}

}  // namespace

TEST_CASE("npy: a 40,000-byte header is refused with a message, not a stack overflow",
          "[npy][bad-input]") {
  // Issue 12's reproducer: std::regex recursed once per character of the shape's spaces and
  // killed the program with SIGSEGV. numpy.load itself refuses headers over 10,000 bytes.
  testing::TempDir dir("npy", "long_header");
  const std::string header =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (14," + std::string(40000, ' ') + "), }\n";
  const std::string path = dir.file("generator.bias.npy");
  write_bytes(path, npy_bytes(header, std::vector<float>(14, 0.0f)));
  CHECK_THROWS_WITH(load_npy_file(path),
                    Contains(path) && Contains("has a 40059-byte header") &&
                        Contains("numpy.load refuses headers over 10000 bytes"));
  // The same file as the fuzz corpus keeps it (fuzz/corpus/npy/regression-long-header.npy).
  CHECK_THROWS_AS(parse_npy(read_bytes(path), "bytes"), NpyError);
}

TEST_CASE("npy: the header parser takes what numpy.load takes, in any spacing",
          "[npy][bad-input]") {
  // 9,000 spaces inside the tuple: long, but within numpy's limit; no recursion, no regex.
  const NpyArray spaced =
      parse_npy(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2," +
                              std::string(9000, ' ') + "3), }\n",
                          quarter_steps()),
                "spaced");
  CHECK(spaced.shape == std::vector<std::size_t>{2, 3});
  CHECK(spaced.values == quarter_steps());
  // Keys in another order, double quotes, no trailing comma, no spaces at all.
  const NpyArray compact = parse_npy(
      npy_bytes("{\"shape\":(6,),\"fortran_order\":False,\"descr\":\"<f4\"}", quarter_steps()),
      "compact");
  CHECK(compact.shape == std::vector<std::size_t>{6});
  const NpyArray scalar =
      parse_npy(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': ()}\n", {2.5f}), "s");
  CHECK(scalar.shape.empty());
  CHECK(scalar.values == std::vector<float>{2.5f});
}

TEST_CASE("npy: a header that is not NumPy's dict literal is an error saying what and where",
          "[npy][bad-input]") {
  const auto refused = [](const std::string& header) {
    try {
      parse_npy(npy_bytes(header, quarter_steps()), "h.npy");
    } catch (const NpyError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const std::string ok_descr = "'descr': '<f4', ";
  const std::string ok_order = "'fortran_order': False, ";
  CHECK_THAT(refused("'descr': '<f4'"),
             Contains("'h.npy' has a malformed header: expected the header to start with '{'"));
  CHECK_THAT(refused("{'descr' '<f4'}"),
             Contains("expected ':' after the key 'descr'") && Contains("at byte 9"));
  CHECK_THAT(refused("{'descr': '<f4}"), Contains("a string is not closed"));
  CHECK_THAT(refused("{" + ok_descr + "'fortran_order': 0, 'shape': (2, 3)}"),
             Contains("expected True or False after 'fortran_order'"));
  CHECK_THAT(refused("{" + ok_descr + ok_order + "'shape': [2, 3]}"),
             Contains("expected the shape as a tuple"));
  CHECK_THAT(refused("{" + ok_descr + ok_order + "'shape': (6)}"),
             Contains("(n) is a number, not a tuple"));
  CHECK_THAT(refused("{" + ok_descr + ok_order + "'shape': (2, -3)}"),
             Contains("expected a whole number in the shape"));
  CHECK_THAT(refused("{" + ok_descr + ok_order + "'shape': (2 3)}"),
             Contains("expected ',' or ')' in the shape"));
  CHECK_THAT(refused("{" + ok_descr + ok_order + "'shape': (1234567890123456789,)}"),
             Contains("an extent of 19 digits"));
  CHECK_THAT(refused("{" + ok_descr + ok_order + "'shape': (2, 3)} x"),
             Contains("has 'x' after the closing '}'"));
  CHECK_THAT(refused("{" + ok_descr + ok_order + "'shape': (2, 3), 'descr': '<f4'}"),
             Contains("repeats the key 'descr'"));
  CHECK_THAT(refused("{" + ok_descr + ok_order + "'shape': (2, 3), 'extra': True}"),
             Contains("unknown key 'extra'") &&
                 Contains("expected only 'descr', 'fortran_order' and 'shape'"));
  CHECK_THAT(refused("{" + ok_order + "'shape': (2, 3)}"),
             Contains("has no plain dtype ('descr')"));
  CHECK_THAT(refused("{" + ok_descr + "'shape': (2, 3)}"), Contains("has no 'fortran_order'"));
  CHECK_THAT(refused(std::string("{'descr': '<f4\0', ", 18) + ok_order + "'shape': (2, 3)}"),
             Contains("holds dtype '<f4\\x00', expected float32"));
  CHECK_THAT(refused("{" + ok_descr + ok_order + "'shape': (99999999, 99999999, 99999999)}"),
             Contains("declares an impossibly large shape (99999999, 99999999, 99999999)"));
}

TEST_CASE("npy: require_finite names the file and the first NaN or infinity", "[npy][bad-input]") {
  NpyArray array{{2, 3}, quarter_steps()};
  CHECK_NOTHROW(require_finite(array, "w.npy"));
  array.values[4] = std::nanf("");
  array.values[5] = std::numeric_limits<float>::infinity();
  CHECK_THROWS_WITH(require_finite(array, "w.npy"),
                    Contains("'w.npy' holds NaN at index [1, 1] (value 5 of 6)"));
  array.values[4] = 0.0f;
  CHECK_THROWS_WITH(require_finite(array, "w.npy"), Contains("'w.npy' holds +inf at index [1, 2]"));
  array.values[5] = -std::numeric_limits<float>::infinity();
  CHECK_THROWS_WITH(require_finite(array, "w.npy"), Contains("holds -inf"));
  CHECK(index_in_shape({}, 0) == "[]");
  CHECK(index_in_shape({4}, 3) == "[3]");
  CHECK(index_in_shape({2, 3, 4}, 23) == "[1, 2, 3]");
}
