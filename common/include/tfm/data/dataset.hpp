/// \file dataset.hpp
/// \brief Chapter 02: what one training step reads — a batch of source ids, decoder inputs and
/// decoder targets — and the order in which batches are drawn.
///
/// The three datasets of the book build this same Batch:
/// toy_translation.hpp (reference 001's German -> English pairs), copy_sequences.hpp (the Annotated
/// Transformer's first example) and vowel_restoration.hpp (reference 002's task).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tfm/core/random.hpp"
#include "tfm/core/tensor.hpp"

namespace tfm {

// [batch]
/// One batch for teacher forcing. Row b of the three tensors is one example:
///
/// - `src`     `[batch, src_len]`: what the encoder reads.
/// - `tgt_in`  `[batch, tgt_len]`: what the decoder reads; starts with `<bos>`.
/// - `tgt_out` `[batch, tgt_len]`: what the decoder must predict; `tgt_out[b, t]` is the token
///   that follows `tgt_in[b, t]`, so `tgt_in` is `tgt_out` shifted right by one.
///   It ends with `<eos>` (or, for a window of text, is the window itself).
struct Batch {
  TokenIds src;      ///< `[batch, src_len]`, the encoder's input
  TokenIds tgt_in;   ///< `[batch, tgt_len]`, the decoder's input, `<bos>` first
  TokenIds tgt_out;  ///< `[batch, tgt_len]`, the labels: tgt_in shifted left by one

  /// Number of examples (rows).
  std::size_t size() const { return src.shape(0); }
};
// [batch]

/// Reports a batch's three tensors to the shape trace under `component`, e.g.
/// `[VowelRestoration] encoder input  src -> [4, 40]  (batch, src_len)`.
void trace_batch(const char* component, const Batch& batch);

/// Row `b` of a `[batch, len]` tensor of ids, as a vector (for Vocabulary::decode).
std::vector<std::int32_t> row(const TokenIds& ids, std::size_t b);

/// Order in which a BatchSampler visits the examples.
enum class Order {
  kShuffled,    ///< training: a new random permutation every epoch, only full batches
  kSequential,  ///< evaluation: 0, 1, 2, ... every example once, the last batch may be short
};

/// Deals out the indices of `num_examples` examples in batches, epoch after epoch.
///
/// Shuffled order is a Fisher–Yates permutation drawn from a seeded tfm::Rng, so a seed fixes
/// every batch of every epoch on every machine; like reference 002's
/// `DataLoader(shuffle=True, drop_last=True)` it drops the examples that do not fill a last
/// batch (different ones each epoch).
class BatchSampler {
 public:
  /// Throws std::invalid_argument if batch_size is 0, or if shuffled order cannot fill a single
  /// batch (num_examples < batch_size), or if there is nothing to sample.
  BatchSampler(std::size_t num_examples, std::size_t batch_size, Order order,
               std::uint64_t seed = 0);

  /// The example indices of the next batch; after the last batch of an epoch the next call
  /// starts a new epoch (reshuffled).
  std::vector<std::size_t> next();
  /// Moves on as if next() had been called `batches` times, at the cost of one shuffle per
  /// epoch passed over (a resumed run skips the batches it has already trained on).
  void skip(std::size_t batches);

  /// Batches in one epoch.
  std::size_t batches_per_epoch() const;
  /// Epochs started so far (1 after the first call to next()).
  std::size_t epoch() const { return epoch_; }

 private:
  void start_epoch();
  std::size_t end_of_epoch() const;  // positions of permutation_ an epoch deals out

  std::size_t num_examples_, batch_size_;
  Order order_;
  Rng rng_;
  std::vector<std::size_t> permutation_;
  std::size_t cursor_ = 0;  // next position in permutation_
  std::size_t epoch_ = 0;
};

}  // namespace tfm
