// Exercise, chapter 05: scaled dot-product attention, backward.
// Check it with: ./tutorial exercise attention_backward
//
// Forward (given): S = Q Kᵀ / sqrt(d_k), A = softmax of each row of S (blocked entries -1e9
// before it, so A is 0 there), C = A V.
// Backward: from dL/dC, return dL/dQ, dL/dK, dL/dV. You need dL/dA, then softmax's backward
// per row (dA[i, j] / dS[i, k] = A[i, j] * ([j == k] - A[i, k])), then the two products.
//
// Shapes: query [B, H, Lq, d_k], key [B, H, Lk, d_k], value [B, H, Lk, d_v],
// weights A [B, H, Lq, Lk], grad_context [B, H, Lq, d_v]
// -> grad_query [B, H, Lq, d_k], grad_key [B, H, Lk, d_k], grad_value [B, H, Lk, d_v].
#include "exercise/tensor.hpp"

namespace ex {

void attention_backward(const Tensor& query, const Tensor& key, const Tensor& value,
                        const Tensor& weights, const Tensor& grad_context, Tensor& grad_query,
                        Tensor& grad_key, Tensor& grad_value) {
}

}  // namespace ex
