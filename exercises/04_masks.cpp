// Exercise, chapter 04: the padding mask and the subsequent (causal) mask.
// Check it with: ./tutorial exercise masks
//
// Convention: mask[b, i, j] = 1 if query i may attend to key j, 0 if it is blocked.
//
// padding_mask: keys [batch, len_k] token ids -> [batch, len_q, len_k]
//   mask[b, i, j] = 1 unless keys[b, j] == pad_id.
// subsequent_mask: -> [batch, len, len]
//   mask[b, i, j] = 1 if j <= i (position i sees itself and the past, never the future).
#include "exercise/tensor.hpp"

namespace ex {

Mask padding_mask(const Ids& keys, std::size_t len_q, std::int32_t pad_id) {
  return {};
}

Mask subsequent_mask(std::size_t batch, std::size_t len) {
  return {};
}

}  // namespace ex
