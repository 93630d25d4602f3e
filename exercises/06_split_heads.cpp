// Exercise, chapter 06: splitting the model dimension into heads, and joining them again.
// Check it with: ./tutorial exercise split_heads
//
// split_heads: x [B, L, H * d_k] -> [B, H, L, d_k], out[b, h, l, c] = x[b, l, h * d_k + c]
//   (PyTorch: x.view(B, L, H, d_k).transpose(1, 2))
// concat_heads: x [B, H, L, d_k] -> [B, L, H * d_k], the inverse
//   (PyTorch: x.transpose(1, 2).contiguous().view(B, L, H * d_k))
// Backward: each is a rearrangement, so the backward of split_heads is concat_heads (applied
// to the gradient), and the backward of concat_heads is split_heads.
#include "exercise/tensor.hpp"

namespace ex {

Tensor split_heads(const Tensor& x, std::size_t n_heads) {
  return {};
}

Tensor concat_heads(const Tensor& x) {
  return {};
}

}  // namespace ex
