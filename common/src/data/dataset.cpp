#include "tfm/data/dataset.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include "tfm/core/trace.hpp"

namespace tfm {

void trace_batch(const char* component, const Batch& batch) {
  const trace::Component traced(component);
  traced(batch.src, "encoder input", "src", "batch, src_len");
  traced(batch.tgt_in, "decoder input", "tgt_in", "batch, tgt_len");
  traced(batch.tgt_out, "decoder target", "tgt_out", "batch, tgt_len");
}

std::vector<std::int32_t> row(const TokenIds& ids, std::size_t b) {
  require(b < ids.shape(0), "row",
          "row " + std::to_string(b) + " of ids with shape " + shape_string(ids.shape()));
  const std::size_t len = ids.shape(1);
  const std::int32_t* first = ids.data() + b * len;
  return std::vector<std::int32_t>(first, first + len);
}

BatchSampler::BatchSampler(std::size_t num_examples, std::size_t batch_size, Order order,
                           std::uint64_t seed)
    : num_examples_(num_examples), batch_size_(batch_size), order_(order), rng_(seed) {
  if (batch_size == 0) throw std::invalid_argument("BatchSampler: the batch size must be >= 1");
  if (num_examples == 0) throw std::invalid_argument("BatchSampler: there are no examples");
  if (order == Order::kShuffled && num_examples < batch_size)
    throw std::invalid_argument("BatchSampler: " + std::to_string(num_examples) +
                                " examples cannot fill one batch of " + std::to_string(batch_size));
  permutation_.resize(num_examples);
}

std::size_t BatchSampler::batches_per_epoch() const {
  if (order_ == Order::kShuffled) return num_examples_ / batch_size_;  // full batches only
  return (num_examples_ + batch_size_ - 1) / batch_size_;
}

// [shuffle]
void BatchSampler::start_epoch() {
  std::iota(permutation_.begin(), permutation_.end(), std::size_t{0});
  if (order_ == Order::kShuffled) {
    // Fisher–Yates: position i takes a uniformly chosen element of positions [0, i].
    for (std::size_t i = permutation_.size() - 1; i > 0; --i)
      std::swap(permutation_[i], permutation_[rng_.below(i + 1)]);
  }
  cursor_ = 0;
  ++epoch_;
}
// [shuffle]

std::size_t BatchSampler::end_of_epoch() const {
  return order_ == Order::kShuffled ? batches_per_epoch() * batch_size_ : num_examples_;
}

std::vector<std::size_t> BatchSampler::next() {
  if (epoch_ == 0 || cursor_ >= end_of_epoch()) start_epoch();
  const std::size_t stop = std::min(cursor_ + batch_size_, end_of_epoch());
  std::vector<std::size_t> indices(permutation_.begin() + static_cast<std::ptrdiff_t>(cursor_),
                                   permutation_.begin() + static_cast<std::ptrdiff_t>(stop));
  cursor_ = stop;
  return indices;
}

void BatchSampler::skip(std::size_t batches) {
  while (batches > 0) {
    if (epoch_ == 0 || cursor_ >= end_of_epoch()) start_epoch();
    const std::size_t left = (end_of_epoch() - cursor_ + batch_size_ - 1) / batch_size_;
    const std::size_t n = std::min(batches, left);
    cursor_ = std::min(cursor_ + n * batch_size_, end_of_epoch());
    batches -= n;
  }
}

}  // namespace tfm
