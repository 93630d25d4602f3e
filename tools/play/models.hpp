// The playground's models: a checkpoint of chapter 11's vowel restoration, of the pronunciation
// project or of the translation project, loaded with the checks of the program that saved it,
// and each task's way of reading a person's text and of decoding.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "tfm/data/vocabulary.hpp"
#include "tfm/machinery/saved_model.hpp"
#include "tfm/model/transformer.hpp"

namespace play {

// A text as the model reads it: one source row per window (a long text is cut as its task
// defines), and what was changed to read it.
struct Reading {
  std::vector<tfm::TokenIds> windows;  // each [1, S]
  std::vector<std::string> notes;
};

// A loaded model and its task. Not thread-safe: the server runs one model at a time.
class PlayModel {
 public:
  virtual ~PlayModel() = default;
  // "vowels", "pronounce" or "translate".
  virtual std::string task() const = 0;
  // What the page says the model does, e.g. "restores the vowels of English text".
  virtual std::string purpose() const = 0;
  // The text a person typed, read as the task reads it; throws std::invalid_argument saying why
  // a text cannot be read.
  virtual Reading read(const std::string& text) const = 0;
  // One window's output, src [1, S] -> [1, T], greedy (beam 1) or beam search.
  virtual tfm::TokenIds generate(const tfm::TokenIds& src, std::size_t beam) = 0;
  // The text of an output row.
  virtual std::string output_text(const tfm::TokenIds& output) const;
  // How the outputs of two windows are joined ("" for vowels, whose windows keep their spaces).
  virtual std::string window_separator() const { return " "; }

  tfm::Transformer& model() { return *saved_.model; }
  const tfm::SavedModel& saved() const { return saved_; }
  const tfm::Vocabulary& source() const { return saved_.header.src_vocabulary; }
  const tfm::Vocabulary& target() const { return saved_.header.tgt_vocabulary; }
  // "d_model 64, 4 heads, 2 + 2 layers, d_ff 256, 105k parameters".
  std::string size() const;

 protected:
  explicit PlayModel(tfm::SavedModel saved) : saved_(std::move(saved)) {}

 private:
  tfm::SavedModel saved_;
};

// Loads the checkpoint in `dir` as the model of the task that saved it (a translation checkpoint
// keeps its tokenizer; a vowel checkpoint has the vowel vocabulary; else pronunciation). Throws
// tfm::CheckpointError (the programs' messages) for a bad checkpoint.
std::unique_ptr<PlayModel> load_play_model(const std::string& dir);

// The commands that train a model each kind loads (the README's), for the page and the terminal.
std::string training_commands();

}  // namespace play
