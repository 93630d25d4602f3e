/// \file task.hpp
/// \brief Task (chapter 11): a task to train on and test — what the model reads and writes, its
/// training batches, its held-out batches, its default model, and how it wants tokens generated.
///
/// Chapter 11's three tasks implement it (tfm::CopyTask, tfm::TranslationTask, tfm::VowelTask);
/// each project beyond the outline implements its own (`projects/pronounce`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tfm/data/dataset.hpp"
#include "tfm/data/vocabulary.hpp"
#include "tfm/model/config.hpp"
#include "tfm/model/transformer.hpp"

namespace tfm {

/// What training and testing need from a task. The description (names, vocabularies, lengths,
/// default model, held-out batches) is fixed when the task is built; the two things every task
/// does its own way are virtual: dealing out training batches and generating tokens.
class Task {
 public:
  virtual ~Task() = default;
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;

  /// Training batch number `index` (0, 1, 2, ...) of `batch_size` sequences, of the run seeded
  /// with `seed`. The same arguments give the same batch whatever was asked before, so a run
  /// resumed after step S goes on with batch S exactly as an uninterrupted run would.
  virtual Batch training_batch(std::size_t index, std::size_t batch_size,
                               std::uint64_t seed) const = 0;
  /// Tokens from a model: src `[B, S]` -> `[B, T]`, with greedy decoding (`beam` = 1) or beam
  /// search, both with the key/value cache, as the task wants them (where to stop, which tokens
  /// may be chosen).
  virtual TokenIds generate(Transformer& model, const TokenIds& src, std::size_t beam) const = 0;

  /// The task's name, e.g. "vowels": it names the files a run writes (results_vowels.txt).
  const std::string& name() const { return name_; }
  /// What the encoder reads.
  const Vocabulary& source_vocabulary() const { return source_vocabulary_; }
  /// What the decoder writes.
  const Vocabulary& target_vocabulary() const { return target_vocabulary_; }
  /// The task's default model: a preset, sized to the data by fit().
  const Config& default_model() const { return default_model_; }
  /// The default training budget, in steps.
  std::size_t default_steps() const { return default_steps_; }
  /// The batches of the held-out loss (never trained on).
  const std::vector<Batch>& held_out() const { return held_out_; }

  /// `config` with what the data decides: the vocabulary sizes and the sequence lengths.
  Config fit(Config config) const;
  /// The keys of tfm::Config that fit() sets (a `--set` of them would be overwritten).
  static const std::vector<std::string>& data_keys();

 protected:
  /// A task named `name` whose source batches have `source_length` columns and target batches
  /// `target_length` (`<bos>` / `<eos>` included); its default model is `preset` fitted to them,
  /// trained for `default_steps` steps.
  Task(std::string name, Vocabulary source, Vocabulary target, std::size_t source_length,
       std::size_t target_length, const Config& preset, std::size_t default_steps);
  /// The held-out batches; the task's constructor sets them.
  void set_held_out(std::vector<Batch> batches) { held_out_ = std::move(batches); }

 private:
  std::string name_;
  Vocabulary source_vocabulary_, target_vocabulary_;
  std::size_t source_length_, target_length_;
  Config default_model_;
  std::size_t default_steps_;
  std::vector<Batch> held_out_;
};

/// Does `id` end a generated row's text (`<eos>` or `<pad>`)?
inline bool ends_text(std::int32_t id) {
  return id == kEosId || id == kPadId;
}
/// The text of row `row` of `tokens`, cut where it ends (ends_text).
std::string generated_text(const Vocabulary& vocabulary, const TokenIds& tokens, std::size_t row);
/// Does row `row` of `tokens` end (ends_text) before its last column runs out?
bool row_ended(const TokenIds& tokens, std::size_t row);

}  // namespace tfm
