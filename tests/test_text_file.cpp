// Writing a text file, and outputs a user can do without: their failure names the file and the
// system's reason, and a side output that fails is a warning, not the end of the program.

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "temp_dir.hpp"
#include "tfm/support/text_file.hpp"

using namespace tfm;

TEST_CASE("write_text_file replaces the file, or names it and the system's reason",
          "[text_file][bad-input]") {
  const testing::TempDir dir("text_file", "write");
  const std::string path = dir.file("out.svg");
  write_text_file(path, "<svg/>\n");
  write_text_file(path, "<svg></svg>\n");  // replaces, does not append
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  CHECK(text.str() == "<svg></svg>\n");

  CHECK_THROWS_WITH(write_text_file(dir.file("missing/x.svg"), "<svg/>"),
                    "cannot write '" + dir.file("missing/x.svg") + "': No such file or directory");
  // A file where a directory should be (as root, the tests cannot take a write permission away).
  CHECK_THROWS_WITH(write_text_file(path + "/x.svg", "<svg/>"),
                    "cannot write '" + path + "/x.svg': Not a directory");
}

TEST_CASE("write_side_output turns a failure into a warning", "[text_file]") {
  bool ran = false;
  CHECK(write_side_output([&] { ran = true; }));
  CHECK(ran);
  CHECK_FALSE(write_side_output([] { write_text_file("/nonexistent-directory/x.svg", ""); }));
}

TEST_CASE("read_whole_file reads to the end, or fails with the system's reason",
          "[text_file][bad-input]") {
  const testing::TempDir dir("text_file", "read");
  const std::string path = dir.file("corpus.txt");
  std::ofstream(path, std::ios::binary) << std::string(100000, 'a');
  CHECK(read_whole_file(path, "corpus", 1u << 20) == std::string(100000, 'a'));
  CHECK_THROWS_WITH(read_whole_file(path, "corpus", 1000),
                    "corpus '" + path + "' has 100000 bytes; the most this program reads is 1000");
  CHECK_THROWS_WITH(read_whole_file(dir.file("none"), "corpus", 1000),
                    "cannot open corpus '" + dir.file("none") + "': No such file or directory");
  // A read error halfway, a file cut short or grown while it is read: tests/fault_shim.cpp
  // injects them into the programs (ctest ch11_cli.corpus_read_error).
}

TEST_CASE("read_text_file names UTF-16 text and says how to convert it", "[text_file][bad-input]") {
  const testing::TempDir dir("text_file", "utf16");
  const std::string path = dir.file("corpus.txt");
  std::ofstream(path, std::ios::binary) << std::string("\xFF\xFEH\0i\0", 6);
  CHECK_THROWS_WITH(read_text_file(path, "corpus"),
                    "corpus '" + path +
                        "' is not a text file (a zero byte at offset 3); it looks like UTF-16: "
                        "convert it with iconv -f utf-16 -t utf-8");
  std::ofstream(path, std::ios::binary) << std::string("ELF\0\0\0", 6);  // binary, not UTF-16
  CHECK_THROWS_WITH(read_text_file(path, "corpus"),
                    "corpus '" + path + "' is not a text file (a zero byte at offset 3)");
}
