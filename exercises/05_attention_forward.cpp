// Exercise, chapter 05: scaled dot-product attention, forward.
// Check it with: ./tutorial exercise attention_forward
//
//   scores  = Q Kᵀ / sqrt(d_k)                       [B, H, Lq, Lk]
//   scores[b, h, i, j] = -1e9 where mask[b, i, j] == 0 (if the mask is not empty)
//   weights = softmax of each row of scores (over j)  [B, H, Lq, Lk]
//   context = weights V                               [B, H, Lq, d_v]
//
// Shapes: query [B, H, Lq, d_k], key [B, H, Lk, d_k], value [B, H, Lk, d_v],
// mask [B, Lq, Lk] shared by the heads, or empty (rank 0) for no mask.
// Returns the context; stores the weights in `weights`.
#include "exercise/tensor.hpp"

namespace ex {

Tensor attention_forward(const Tensor& query, const Tensor& key, const Tensor& value,
                         const Mask& mask, Tensor& weights) {
  return {};
}

}  // namespace ex
