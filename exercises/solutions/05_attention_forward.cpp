// Solution of the exercise attention_forward (chapter 05). Try the exercise first.
#include <algorithm>
#include <cmath>

#include "exercise/tensor.hpp"

namespace ex {

Tensor attention_forward(const Tensor& query, const Tensor& key, const Tensor& value,
                         const Mask& mask, Tensor& weights) {
  const std::size_t B = query.dim(0), H = query.dim(1), Lq = query.dim(2), d_k = query.dim(3);
  const std::size_t Lk = key.dim(2), d_v = value.dim(3);
  const float scale = 1.0f / std::sqrt(float(d_k));
  weights = Tensor({B, H, Lq, Lk});
  Tensor context({B, H, Lq, d_v});
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t i = 0; i < Lq; ++i) {
        float row_max = -INFINITY;
        for (std::size_t j = 0; j < Lk; ++j) {
          float score = 0.0f;
          for (std::size_t c = 0; c < d_k; ++c) score += query(b, h, i, c) * key(b, h, j, c);
          score *= scale;
          if (mask.rank() > 0 && mask(b, i, j) == 0) score = -1e9f;  // before the softmax
          weights(b, h, i, j) = score;
          row_max = std::max(row_max, score);
        }
        float sum = 0.0f;
        for (std::size_t j = 0; j < Lk; ++j) {
          weights(b, h, i, j) = std::exp(weights(b, h, i, j) - row_max);
          sum += weights(b, h, i, j);
        }
        for (std::size_t j = 0; j < Lk; ++j) weights(b, h, i, j) /= sum;
        for (std::size_t j = 0; j < Lk; ++j)
          for (std::size_t c = 0; c < d_v; ++c)
            context(b, h, i, c) += weights(b, h, i, j) * value(b, h, j, c);
      }
  return context;
}

}  // namespace ex
