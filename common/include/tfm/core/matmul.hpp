/// \file matmul.hpp
/// \brief Chapter 05: the kernels: every matrix product of the model, on whole tensors.
///
/// The layers write their products as formulas, `matmul(q, k, Op::kPlain, Op::kTransposed)` for
/// \f$ Q K^\top \f$, and never see a pointer or a stride: those live in matmul.cpp alone, which
/// calls OpenBLAS's `cblas_sgemm` (reading a transposed operand where it is stored, so nothing is
/// copied), runs the products of a batch on the threads, and splits a big product across them
/// (on the kernels and threads that machine.hpp sets up). With bf16 chosen (precision.hpp), the
/// products big enough to gain round their operands to bf16 and run on oneDNN instead
/// (bf16_products.hpp).
/// Every function checks the shapes and names both operands in the ShapeError.
#pragma once

#include <cstddef>
#include <string>

#include "tfm/core/tensor.hpp"

namespace tfm {

/// Whether an operand is used as stored or transposed.
enum class Op { kPlain, kTransposed };

/// `alpha · op(a) op(b)` for matrices: `[M, K] · [K, N] -> [M, N]`.
Tensor2 matmul(const Tensor2& a, const Tensor2& b, Op op_a = Op::kPlain, Op op_b = Op::kPlain,
               float alpha = 1.0f);

/// Batched over the leading axis, as `torch.matmul`: `[B, M, K] · [B, K, N] -> [B, M, N]`, op
/// applied to the last two axes of each operand; times alpha.
Tensor3 matmul(const Tensor3& a, const Tensor3& b, Op op_a = Op::kPlain, Op op_b = Op::kPlain,
               float alpha = 1.0f);

/// Batched over the two leading axes (batch and heads), as `torch.matmul`:
/// `[B, H, M, K] · [B, H, K, N] -> [B, H, M, N]`, op applied to the last two axes; times alpha.
Tensor4 matmul(const Tensor4& a, const Tensor4& b, Op op_a = Op::kPlain, Op op_b = Op::kPlain,
               float alpha = 1.0f);

/// Every position times one matrix, as `torch.matmul` broadcasts it:
/// x `[B, L, K]` · op(w) `[K, N]` -> `[B, L, N]` (one product of B·L rows, no copy).
Tensor3 matmul(const Tensor3& x, const Tensor2& w, Op op_w = Op::kPlain);

/// The weight gradient's form, summed over every position: `c += op(a) op(b)`, where the 3-D
/// operands are read as matrices of B·L rows. `dW += dyᵀ x` is
/// `matmul_accumulate(dW, dy, x, Op::kTransposed, Op::kPlain)`: `[out, B·L] · [B·L, in]`.
void matmul_accumulate(Tensor2& c, const Tensor3& a, const Tensor3& b, Op op_a, Op op_b);

/// How one big product `[m, k] · [k, n]` is cut into slices for the threads.
struct GemmSplit {
  /// The side that is cut.
  enum class Along {
    kNothing,  ///< one call: the product is too small to be worth cutting
    kRows,     ///< slices of C's rows, each a product of its own
    kColumns,  ///< slices of C's columns, each a product of its own
    kDepth     ///< slices of k, each a partial of all of C; the partials are added in order
  };
  Along along;        ///< which side
  std::size_t parts;  ///< how many slices: a power of two; 1 when along is kNothing
};

/// The cut of `[m, k] · [k, n]`: along its longest side (a weight gradient sums over B·L
/// positions, far more than its m or n, so its sum is cut). It depends on the shape alone, never
/// on the number of threads, so a product gives the same bits on 1 thread as on 2. The tests use
/// it to check every slice's edges.
GemmSplit gemm_split(std::size_t m, std::size_t n, std::size_t k);

/// `nn.Linear`'s product: x `[B, L, in]`, weight `[out, in]`, bias `[out]` or empty ->
/// `x Wᵀ + b` `[B, L, out]`, the bias added by the product itself (no second pass).
Tensor3 linear(const Tensor3& x, const Tensor2& weight, const Tensor1& bias);

}  // namespace tfm
