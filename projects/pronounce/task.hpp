/// \file task.hpp
/// \brief The pronunciation project's tfm::Task: grapheme-to-phoneme conversion on CMUdict —
/// letters in, phonemes out, of another length — and pronouncing any word a person types.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "pronounce/pronunciations.hpp"
#include "tfm/tasks/task.hpp"

namespace pronounce {

/// Learn to pronounce the training words of CMUdict: the model reads a word's letters and writes
/// its phonemes, and decides itself where to stop.
class PronunciationTask : public tfm::Task {
 public:
  /// The words of Festival's CMUdict `dictionary`, split by word. The default model is
  /// chapter 11's `vowels-small` on batches of 128 words, for 1,200 steps; the held-out loss reads
  /// the first 512 held-out words, 128 per batch.
  explicit PronunciationTask(const std::string& dictionary = kCmudictPath);

  /// PronunciationData::training_batch: an epoch of every training pair, bucketed by length.
  tfm::Batch training_batch(std::size_t index, std::size_t batch_size,
                            std::uint64_t seed) const override;
  /// Up to the model's tgt_len tokens per word, choosing only among the phonemes and `<eos>`
  /// (never `<pad>`, `<bos>` or `<unk>`), stopping at `<eos>`.
  tfm::TokenIds generate(tfm::Transformer& model, const tfm::TokenIds& src,
                         std::size_t beam) const override;
  /// The pronunciations of `words` (any words, in the dictionary or not), one string of phonemes
  /// each; one that reached the most phonemes the model writes without ending says it was cut
  /// off. Throws std::invalid_argument naming the word for a word the model cannot read
  /// (PronunciationData::encode_words).
  std::vector<std::string> pronounce(tfm::Transformer& model, const std::vector<std::string>& words,
                                     std::size_t beam) const;

  /// The dictionary, split by word.
  const PronunciationData& data() const { return *data_; }

 private:
  explicit PronunciationTask(std::shared_ptr<const PronunciationData> data);

  std::shared_ptr<const PronunciationData> data_;
};

/// `--pronounce -`: every line of `in` (words separated by spaces) pronounced with `task`, by
/// tfm::answer_lines (on standard output and error; the words' phonemes joined by " | "), the
/// attention maps of the last word written into `attention_dir` (unless empty). Returns the
/// number of lines refused.
std::size_t pronounce_lines(std::istream& in, tfm::Transformer& model,
                            const PronunciationTask& task, std::size_t beam,
                            const std::string& attention_dir);

}  // namespace pronounce
