/// \file translation_task.hpp
/// \brief Task (chapter 11): reference 001's toy translation as a tfm::Task — its two German -> English
/// sentence pairs (tfm::ToyTranslation), the `toy` model, 100 steps (kDefaultSteps).
#pragma once

#include <cstddef>
#include <cstdint>

#include "tfm/tasks/task.hpp"
#include "tfm/tasks/toy_translation.hpp"

namespace tfm {

/// Learn reference 001's two sentence pairs by heart: every batch, and the held-out batch, is
/// both pairs (there is nothing else to hold out).
class TranslationTask : public Task {
 public:
  /// The default training budget, in steps.
  static constexpr std::size_t kDefaultSteps = 100;

  TranslationTask();

  /// Both pairs, whatever the index, size and seed.
  Batch training_batch(std::size_t index, std::size_t batch_size,
                       std::uint64_t seed) const override;
  /// Up to the model's tgt_len tokens per row, stopping at `<eos>`.
  TokenIds generate(Transformer& model, const TokenIds& src, std::size_t beam) const override;

 private:
  ToyTranslation data_;
};

}  // namespace tfm
