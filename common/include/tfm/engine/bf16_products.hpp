/// \file bf16_products.hpp
/// \brief Engine (not a lesson): matrix products on bf16 operands with fp32 sums, through oneDNN.
///
/// bf16 ("brain float") is fp32 with the low 16 bits of the mantissa dropped: the same 8-bit
/// exponent, so the same range, and 8 bits of precision instead of 24. Rounding an operand to bf16
/// costs a relative error of at most 2^-9; the products sum in fp32. matmul.cpp calls this file
/// when tfm::product_precision() is bf16; nothing else does.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tfm {

/// fp32 rounded to bf16, to the nearest (ties to even), as the CPU's VCVTNEPS2BF16 rounds: a NaN
/// stays a NaN, and a subnormal input becomes a zero of its sign. The bits are fp32's top half.
std::uint16_t bf16_from_float(float x);

/// The fp32 number a bf16 holds, exactly (bf16's bits, then sixteen zero bits).
float float_from_bf16(std::uint16_t bits);

/// `out[i] = bf16_from_float(in[i])` for `i < count`, on the CPU's conversion instructions.
/// Needs tfm::cpu_has_bf16().
void round_to_bf16(const float* in, std::size_t count, std::uint16_t* out);

/// The least work, in multiply-adds per product (m·n·k), that bf16 speeds up. Below it the
/// rounding and oneDNN's call cost more than they save, and matmul.cpp keeps the product in fp32:
/// attention's per-head products at 40 positions (51,200) and one decoded token (65,536 for
/// d_model 256). Measured on one thread of an Intel Xeon (family 6, model 207, AMX): [16 x 256] ·
/// [256 x 256] 19 µs in bf16 against 28 µs in fp32, [1 x 256] · [256 x 256] 18 against 5.
constexpr std::size_t kBf16LeastWork = std::size_t(1) << 20;

/// Whether a product of this size runs in bf16 when bf16 is chosen (at least kBf16LeastWork).
inline bool bf16_pays(std::size_t m, std::size_t n, std::size_t k) {
  return m * n * k >= kBf16LeastWork;
}

/// `batch` products `C_i = alpha op(A_i) op(B_i) + beta C_i`, row-major, with op(A) `[m, k]`,
/// op(B) `[k, n]` and C `[m, n]`. lda, ldb and ldc are the row strides as stored; A_i starts at
/// `a + i * stride_a` (likewise B and C; a stride of 0 uses one operand for every product).
struct BatchedProduct {
  std::size_t batch;     ///< how many products
  std::size_t m;         ///< rows of op(A) and of C
  std::size_t n;         ///< columns of op(B) and of C
  std::size_t k;         ///< columns of op(A), rows of op(B): the length of each sum
  bool transpose_a;      ///< op(A) is Aᵀ
  bool transpose_b;      ///< op(B) is Bᵀ
  float alpha;           ///< the factor of every product
  float beta;            ///< 0 (C may be new memory, never read) or 1 (C += ...)
  const float* a;        ///< the first A
  std::size_t lda;       ///< A's row stride, as stored
  std::size_t stride_a;  ///< from one A to the next (0: the same A for all)
  const float* b;        ///< the first B
  std::size_t ldb;       ///< B's row stride, as stored
  std::size_t stride_b;  ///< from one B to the next (0: the same B for all)
  float* c;              ///< the first C
  std::size_t ldc;       ///< C's row stride
  std::size_t stride_c;  ///< from one C to the next
};

/// Computes `p` with A and B rounded to bf16 (round_to_bf16) and C in fp32, on oneDNN's matmul,
/// which runs on the OpenMP threads. Needs tfm::cpu_has_bf16() and a product that is not empty
/// (batch, m, n and k at least 1: matmul.cpp sends only those that bf16_pays).
void bf16_products(const BatchedProduct& p);

}  // namespace tfm
