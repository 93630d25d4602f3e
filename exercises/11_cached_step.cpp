// Exercise, chapter 11: one step of cached (incremental) decoding, one head.
// Check it with: ./tutorial exercise cached_step
//
// Greedy decoding feeds one new token per step. Step t gets the embedding x_t of the token at
// position t, and keeps the keys and values of the earlier positions in a cache:
//   h = x_t + pe[t, :]                 (the encoding of position t: this token's true position)
//   q = W_q h,  k = W_k h,  v = W_v h  (W [d_model, d_model] as nn.Linear stores it: q_i = sum_c W_q[i, c] h_c)
//   append k to keys and v to values  (now t + 1 rows: positions 0 .. t)
//   out = sum_j a_j * values[j],  a = softmax_j(q · keys[j] / sqrt(d_model))
// No mask is needed: the cache holds no future position.
//
// Shapes: x_t [d_model], pe [max_len, d_model], w_q, w_k, w_v [d_model, d_model];
// keys, values: t rows of [d_model] each before the call, t + 1 after -> out [d_model].
#include <cstddef>
#include <vector>

#include "exercise/tensor.hpp"

namespace ex {

Tensor cached_step(const Tensor& x_t, std::size_t t, const Tensor& pe, const Tensor& w_q,
                   const Tensor& w_k, const Tensor& w_v, std::vector<Tensor>& keys,
                   std::vector<Tensor>& values) {
  return {};
}

}  // namespace ex
