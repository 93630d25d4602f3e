// Exercise, chapter 09: the input of a stack: embedding, scale and positional encoding.
// Check it with: ./tutorial exercise embedding
//
// Forward:  x[b, l, :] = table[ids[b, l], :] * sqrt(d_model) + pe[l, :]
// Backward: the gradient of the table from grad_x. The lookup copies rows, so row v of grad_table
// collects sqrt(d_model) * grad_x[b, l, :] from EVERY position where ids[b, l] == v (a token that
// appears twice gets both). pe is fixed: it has no gradient.
//
// Shapes: ids [B, L], table [vocab, d_model], pe [max_len, d_model] (max_len >= L)
// -> x [B, L, d_model]; grad_x [B, L, d_model] -> grad_table [vocab, d_model].
#include "exercise/tensor.hpp"

namespace ex {

Tensor embed(const Ids& ids, const Tensor& table, const Tensor& pe) {
  return {};
}

Tensor embed_backward(const Ids& ids, const Tensor& grad_x, std::size_t vocab_size) {
  return {};
}

}  // namespace ex
