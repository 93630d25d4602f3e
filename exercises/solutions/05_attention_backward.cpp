// Solution of the exercise attention_backward (chapter 05). Try the exercise first.
#include <cmath>

#include "exercise/tensor.hpp"

namespace ex {

void attention_backward(const Tensor& query, const Tensor& key, const Tensor& value,
                        const Tensor& weights, const Tensor& grad_context, Tensor& grad_query,
                        Tensor& grad_key, Tensor& grad_value) {
  const std::size_t B = query.dim(0), H = query.dim(1), Lq = query.dim(2), d_k = query.dim(3);
  const std::size_t Lk = key.dim(2), d_v = value.dim(3);
  const float scale = 1.0f / std::sqrt(float(d_k));
  grad_query = Tensor(query.shape());
  grad_key = Tensor(key.shape());
  grad_value = Tensor(value.shape());
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t i = 0; i < Lq; ++i) {
        // dA = dC Vᵀ, and dV += Aᵀ dC, row i at a time.
        Tensor grad_weights({Lk});
        for (std::size_t j = 0; j < Lk; ++j)
          for (std::size_t c = 0; c < d_v; ++c) {
            grad_weights(j) += grad_context(b, h, i, c) * value(b, h, j, c);
            grad_value(b, h, j, c) += weights(b, h, i, j) * grad_context(b, h, i, c);
          }
        // Softmax's backward: dS = A * (dA - sum_j dA_j A_j).
        float row_sum = 0.0f;
        for (std::size_t j = 0; j < Lk; ++j) row_sum += grad_weights(j) * weights(b, h, i, j);
        for (std::size_t j = 0; j < Lk; ++j) {
          const float grad_score = weights(b, h, i, j) * (grad_weights(j) - row_sum) * scale;
          // S = Q Kᵀ (scaled): dQ = dS K, dK = dSᵀ Q.
          for (std::size_t c = 0; c < d_k; ++c) {
            grad_query(b, h, i, c) += grad_score * key(b, h, j, c);
            grad_key(b, h, j, c) += grad_score * query(b, h, i, c);
          }
        }
      }
}

}  // namespace ex
