#include "tfm/tasks/copy_task.hpp"

#include "tfm/decode/beam_search.hpp"

namespace tfm {
namespace {
constexpr std::size_t kSymbols = 10, kLength = 10;  // the Annotated Transformer's
}  // namespace

CopyTask::CopyTask()
    : Task("copy", CopySequences(kSymbols, kLength).vocabulary(),
           CopySequences(kSymbols, kLength).vocabulary(), kLength, kLength + 1, preset("toy"),
           kDefaultSteps),
      data_(kSymbols, kLength) {
  Rng held_out_rng(0x5EED);  // a generator no training run is seeded with
  std::vector<Batch> held_out;
  for (int i = 0; i < 4; ++i)
    held_out.push_back(data_.batch(default_model().batch_size, held_out_rng));
  set_held_out(std::move(held_out));
}

Batch CopyTask::training_batch(std::size_t index, std::size_t batch_size,
                               std::uint64_t seed) const {
  if (index < stream_.next || seed != stream_.seed || batch_size != stream_.batch_size)
    stream_ = Stream{Rng(seed), seed, batch_size, 0};
  for (; stream_.next < index; ++stream_.next) data_.batch(batch_size, stream_.rng);
  ++stream_.next;
  return data_.batch(batch_size, stream_.rng);
}

TokenIds CopyTask::generate(Transformer& model, const TokenIds& src, std::size_t beam) const {
  return tfm::generate(model, src, beam, {});
}

}  // namespace tfm
