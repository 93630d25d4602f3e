/// \file copy_task.hpp
/// \brief Task (chapter 11): the copy task as a tfm::Task — random sequences (tfm::CopySequences), the
/// `toy` model, 1,000 steps.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tfm/core/random.hpp"
#include "tfm/tasks/copy_sequences.hpp"
#include "tfm/tasks/task.hpp"

namespace tfm {

/// Learn to copy sequences of 10 symbols drawn from 10: the Annotated Transformer's first example.
class CopyTask : public Task {
 public:
  /// The default training budget, in steps.
  static constexpr std::size_t kDefaultSteps = 1000;

  /// Its held-out batches come from a generator no training run is seeded with.
  CopyTask();

  /// The batches are drawn one after the other from one generator seeded with `seed`: batch
  /// `index` is the one drawn after `index` others of the same size.
  Batch training_batch(std::size_t index, std::size_t batch_size,
                       std::uint64_t seed) const override;
  /// Up to the model's tgt_len tokens per row, stopping at `<eos>`.
  TokenIds generate(Transformer& model, const TokenIds& src, std::size_t beam) const override;

 private:
  CopySequences data_;
  // Where the generator of the last batch asked for stands; a jump forward draws and drops the
  // batches in between, a jump back (or another seed or size) starts it again.
  struct Stream {
    Rng rng{0};
    std::uint64_t seed = 0;
    std::size_t batch_size = 0, next = 0;
  };
  mutable Stream stream_;
};

}  // namespace tfm
