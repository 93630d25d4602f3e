#include "tfm/tasks/copy_sequences.hpp"

#include <string>
#include <vector>

#include "tfm/core/trace.hpp"

namespace tfm {
namespace {

std::vector<std::string> numbered_symbols(std::size_t n) {
  std::vector<std::string> symbols;
  for (std::size_t k = 1; k <= n; ++k) symbols.push_back(std::to_string(k));
  return symbols;
}

}  // namespace

CopySequences::CopySequences(std::size_t num_symbols, std::size_t length)
    : num_symbols_(num_symbols),
      length_(length),
      vocabulary_(Tokenization::kWords, numbered_symbols(num_symbols)) {
  require(num_symbols >= 1, "CopySequences", "needs at least one symbol");
  require(length >= 1, "CopySequences", "needs sequences of at least one symbol");
}

// [copy batch]
Batch CopySequences::batch(std::size_t batch_size, Rng& rng) const {
  // -> src [B, L], tgt_in [B, L + 1], tgt_out [B, L + 1]
  const std::size_t L = length_;
  Batch batch{TokenIds::from_shape({batch_size, L}), TokenIds::from_shape({batch_size, L + 1}),
              TokenIds::from_shape({batch_size, L + 1})};
  for (std::size_t b = 0; b < batch_size; ++b) {
    batch.tgt_in(b, 0) = kBosId;
    for (std::size_t t = 0; t < L; ++t) {
      const auto symbol = kFirstSymbolId + static_cast<std::int32_t>(rng.below(num_symbols_));
      batch.src(b, t) = symbol;         // the encoder reads the sequence,
      batch.tgt_in(b, t + 1) = symbol;  // the decoder reads it shifted right by <bos>,
      batch.tgt_out(b, t) = symbol;     // and must write it back, followed by <eos>.
    }
    batch.tgt_out(b, L) = kEosId;
  }
  trace_batch("CopySequences", batch);
  return batch;
}
// [copy batch]

}  // namespace tfm
