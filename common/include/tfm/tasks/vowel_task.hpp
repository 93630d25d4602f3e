/// \file vowel_task.hpp
/// \brief Task (chapter 11): reference 002's vowel restoration as a tfm::Task — windows of a text
/// (tfm::VowelRestoration), the `vowels-tiny` model, 5,300 steps — and restoring a line a person
/// typed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "tfm/tasks/task.hpp"
#include "tfm/tasks/vowel_restoration.hpp"

namespace tfm {

/// Restore the vowels of English text: the encoder reads a window with its vowels hidden as `*`,
/// the decoder writes the window back.
class VowelTask : public Task {
 public:
  /// The default training budget, in steps (chapter 11's default run).
  static constexpr std::size_t kDefaultSteps = 5300;

  /// The windows of `corpus` (any text file; VowelRestoration::from_file says what it refuses).
  /// The held-out loss reads up to 512 held-out windows, 128 per batch.
  explicit VowelTask(const std::string& corpus = kDefaultCorpusPath);

  /// Shuffled training windows, dealt out in batches; batch `index` is where the sampler stands
  /// after `index` batches, which BatchSampler::skip reaches without drawing them.
  Batch training_batch(std::size_t index, std::size_t batch_size,
                       std::uint64_t seed) const override;
  /// generate(model, src, beam, true): every letter the input shows kept.
  TokenIds generate(Transformer& model, const TokenIds& src, std::size_t beam) const override;
  /// The output has the input's length. With `keep_letters` every letter and space the input
  /// shows is forced and every `*` becomes a vowel (the task as defined: the letters are given);
  /// without, the model may rewrite any character (`--free`).
  TokenIds generate(Transformer& model, const TokenIds& src, std::size_t beam,
                    bool keep_letters) const;
  /// The vowels of one line of text restored: `text` hides its vowels as `*` (e.g. `th* t*m*`).
  /// Throws std::invalid_argument (from tfm::restore_source_ids) for text the model cannot read.
  std::string restore(Transformer& model, const std::string& text, std::size_t beam,
                      bool keep_letters) const;

  /// A line of plain text a person typed, as the encoder reads it: read_typed_text (the training
  /// text's rules, with notes of what changed), then cut by text_windows into windows of the
  /// model's training length `window` (a note says so), each `[1, length]`. Throws
  /// std::invalid_argument for a text without a letter.
  struct TypedWindows {
    std::vector<TokenIds> windows;   ///< the source rows, in order
    std::vector<std::string> notes;  ///< what was changed to read the text
  };
  /// See TypedWindows; `max_len` is the model's positional table.
  TypedWindows read_typed(const std::string& typed, std::size_t window, std::size_t max_len) const;
  /// The vowels of a line of plain text restored, window by window (read_typed, then generate
  /// with every letter kept), and the windows read; the outputs are joined without a separator
  /// (the windows keep their spaces).
  std::string restore_typed(Transformer& model, const TypedWindows& typed, std::size_t beam) const;

  /// The text, cut into windows.
  const VowelRestoration& data() const { return *data_; }

 private:
  explicit VowelTask(std::shared_ptr<const VowelRestoration> data);

  std::shared_ptr<const VowelRestoration> data_;
  struct Stream {  // the sampler of the last batch asked for, and the batch it deals next
    std::unique_ptr<BatchSampler> sampler;
    std::uint64_t seed = 0;
    std::size_t batch_size = 0, next = 0;
  };
  mutable Stream stream_;
};

/// Chapter 11's `--restore -`: every line of `in` (plain text) restored with `task` (read_typed,
/// restore_typed) by tfm::answer_lines, on standard output and error, the attention maps of the
/// last line written into `attention_dir` (unless empty). Returns the number of lines refused.
std::size_t restore_lines(std::istream& in, Transformer& model, const VowelTask& task,
                          std::size_t beam, const std::string& attention_dir);

}  // namespace tfm
