#include "tfm/layers/mask.hpp"

namespace tfm {

// [padding mask]
Mask padding_mask(const TokenIds& keys, std::size_t len_q, std::int32_t pad_id) {
  const std::size_t batch = keys.shape(0), len_k = keys.shape(1);
  Mask mask = Mask::from_shape({batch, len_q, len_k});
  for (std::size_t b = 0; b < batch; ++b)
    for (std::size_t i = 0; i < len_q; ++i)
      for (std::size_t j = 0; j < len_k; ++j) mask(b, i, j) = keys(b, j) != pad_id;
  return mask;
}
// [padding mask]

// [subsequent mask]
Mask subsequent_mask(std::size_t batch, std::size_t len) {
  Mask mask = Mask::from_shape({batch, len, len});
  for (std::size_t b = 0; b < batch; ++b)
    for (std::size_t i = 0; i < len; ++i)
      for (std::size_t j = 0; j < len; ++j) mask(b, i, j) = j <= i;
  return mask;
}
// [subsequent mask]

Mask combine_masks(const Mask& a, const Mask& b) {
  require(a.shape() == b.shape(), "combine_masks",
          "masks differ in shape: " + shape_string(a.shape()) + " vs " + shape_string(b.shape()));
  Mask out = Mask::from_shape(a.shape());
  for (std::size_t i = 0; i < a.size(); ++i) out.data()[i] = a.data()[i] && b.data()[i];
  return out;
}

// [decoder self mask]
Mask decoder_self_mask(const TokenIds& target, std::int32_t pad_id) {
  const std::size_t batch = target.shape(0), len = target.shape(1);
  return combine_masks(padding_mask(target, len, pad_id), subsequent_mask(batch, len));
}
// [decoder self mask]

}  // namespace tfm
