// Writing a text file, and outputs a user can do without: their failure names the file and the
// system's reason, and a side output that fails is a warning, not the end of the program.

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "temp_dir.hpp"
#include "tfm/io/text_file.hpp"

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
