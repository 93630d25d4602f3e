// Solution of the exercise masks (chapter 04). Try the exercise first.
#include "exercise/tensor.hpp"

namespace ex {

Mask padding_mask(const Ids& keys, std::size_t len_q, std::int32_t pad_id) {
  Mask mask({keys.dim(0), len_q, keys.dim(1)});
  for (std::size_t b = 0; b < keys.dim(0); ++b)
    for (std::size_t i = 0; i < len_q; ++i)
      for (std::size_t j = 0; j < keys.dim(1); ++j) mask(b, i, j) = keys(b, j) != pad_id;
  return mask;
}

Mask subsequent_mask(std::size_t batch, std::size_t len) {
  Mask mask({batch, len, len});
  for (std::size_t b = 0; b < batch; ++b)
    for (std::size_t i = 0; i < len; ++i)
      for (std::size_t j = 0; j <= i; ++j) mask(b, i, j) = 1;
  return mask;
}

}  // namespace ex
