/// \file matmul.hpp
/// \brief Matrix products through OpenBLAS `cblas_sgemm`, on contiguous row-major buffers.
///
/// Every matrix product of the model goes through `gemm`. The tensor overloads check
/// shapes and name them in the error; the batched forms run one product per leading index
/// (heads of attention, batch of sequences) without copying.
#pragma once

#include <cstddef>

#include "tfm/tensor.hpp"

namespace tfm {

/// Whether an operand is used as stored or transposed.
enum class Op { kPlain, kTransposed };

/// `C = alpha * op(A) * op(B) + beta * C` for row-major matrices, where `op(A)` is `[M, K]`,
/// `op(B)` is `[K, N]` and `C` is `[M, N]`; `lda`, `ldb`, `ldc` are the row strides as stored.
void gemm(Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K, float alpha, const float* A,
          std::size_t lda, const float* B, std::size_t ldb, float beta, float* C, std::size_t ldc);

/// `batch` independent products; operand `i` starts at `A + i * stride_a` (likewise B, C).
/// A stride of 0 reuses one operand for every product (e.g. one weight for every sequence).
void gemm_batched(std::size_t batch, Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K,
                  float alpha, const float* A, std::size_t lda, std::size_t stride_a, const float* B,
                  std::size_t ldb, std::size_t stride_b, float beta, float* C, std::size_t ldc,
                  std::size_t stride_c);

/// `op(a) · op(b)` for matrices: `[M, K] · [K, N] -> [M, N]`.
Tensor2 matmul(const Tensor2& a, const Tensor2& b, Op op_a = Op::kPlain, Op op_b = Op::kPlain);

/// Batched product over the leading axis: `[B, M, K] · [B, K, N] -> [B, M, N]` (with op applied to
/// the last two axes of each operand).
Tensor3 matmul(const Tensor3& a, const Tensor3& b, Op op_a = Op::kPlain, Op op_b = Op::kPlain);

/// Batched product over the two leading axes:
/// `[B, H, M, K] · [B, H, K, N] -> [B, H, M, N]` (with op applied to the last two axes).
Tensor4 matmul(const Tensor4& a, const Tensor4& b, Op op_a = Op::kPlain, Op op_b = Op::kPlain);

}  // namespace tfm
