// A checkpoint's extra files (DIR/extra/<name>): written with it, read back with its header,
// kept through a re-save, and refused before anything is written when a name cannot be a file.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "temp_dir.hpp"
#include "tfm/model/transformer.hpp"
#include "tfm/train/checkpoint.hpp"

using namespace tfm;

TEST_CASE("a checkpoint keeps its extra files and reads them back", "[checkpoint]") {
  testing::TempDir dir("checkpoint_extra", "round_trip");
  const Config config = preset("tiny");
  Transformer model(config, 1);
  const ParameterList params = parameters_of(model);
  const Vocabulary vocabulary(Tokenization::kWords, {"a", "b"});
  CheckpointHeader header{config, vocabulary, vocabulary};
  header.extra_files["tokenizer.txt"] = "# BPE\ncharacters 1\na\nmerges 0\n";
  header.extra_files["notes.txt"] = "";
  const std::string path = dir.file("model");
  save_checkpoint(path, header, params);
  CHECK(std::filesystem::is_regular_file(path + "/extra/tokenizer.txt"));
  CHECK(read_checkpoint_header(path).extra_files == header.extra_files);
  // Saving again into the same directory replaces it (extra files and all).
  header.extra_files.erase("notes.txt");
  save_checkpoint(path, header, params);
  CHECK(read_checkpoint_header(path).extra_files == header.extra_files);
  // A checkpoint without extra files has none.
  save_checkpoint(dir.file("plain"), CheckpointHeader{config, vocabulary, vocabulary}, params);
  CHECK(read_checkpoint_header(dir.file("plain")).extra_files.empty());
}

TEST_CASE("an extra file name that cannot be a file is refused before writing", "[checkpoint][bad-input]") {
  testing::TempDir dir("checkpoint_extra", "bad_name");
  const Config config = preset("tiny");
  Transformer model(config, 1);
  const Vocabulary vocabulary(Tokenization::kWords, {"a"});
  for (const std::string name : {"", ".hidden", "a/b"}) {
    CheckpointHeader header{config, vocabulary, vocabulary};
    header.extra_files[name] = "x";
    CHECK_THROWS_WITH(save_checkpoint(dir.file("m"), header, parameters_of(model)),
                      "cannot save the checkpoint '" + dir.file("m") + "': the extra file name '" + name +
                          "' cannot be a file name (nothing was written)");
    CHECK_FALSE(std::filesystem::exists(dir.file("m")));
  }
}
