// This file alone includes <cblas.h>: xtensor-blas declares its own cblas symbols and the two
// headers cannot meet in one translation unit.
#include "tfm/matmul.hpp"

#include <cblas.h>

namespace tfm {
namespace {

CBLAS_TRANSPOSE to_cblas(Op op) { return op == Op::kPlain ? CblasNoTrans : CblasTrans; }

struct Dims {
  std::size_t m, n, k;
};

// Shapes of op(a) [m, k] and op(b) [k, n] from the last two axes of each operand.
Dims product_dims(const char* op_name, std::size_t a_rows, std::size_t a_cols, std::size_t b_rows,
                  std::size_t b_cols, Op op_a, Op op_b, const std::string& a_shape,
                  const std::string& b_shape) {
  const std::size_t m = op_a == Op::kPlain ? a_rows : a_cols;
  const std::size_t ka = op_a == Op::kPlain ? a_cols : a_rows;
  const std::size_t kb = op_b == Op::kPlain ? b_rows : b_cols;
  const std::size_t n = op_b == Op::kPlain ? b_cols : b_rows;
  require(ka == kb, op_name,
          "inner dimensions differ: a " + a_shape + (op_a == Op::kTransposed ? "ᵀ" : "") + " · b " +
              b_shape + (op_b == Op::kTransposed ? "ᵀ" : "") + " (" + std::to_string(ka) +
              " vs " + std::to_string(kb) + ")");
  return {m, n, ka};
}

}  // namespace

void gemm(Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K, float alpha, const float* A,
          std::size_t lda, const float* B, std::size_t ldb, float beta, float* C, std::size_t ldc) {
  if (M == 0 || N == 0) return;
  cblas_sgemm(CblasRowMajor, to_cblas(op_a), to_cblas(op_b), static_cast<int>(M),
              static_cast<int>(N), static_cast<int>(K), alpha, A, static_cast<int>(lda), B,
              static_cast<int>(ldb), beta, C, static_cast<int>(ldc));
}

void gemm_batched(std::size_t batch, Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K,
                  float alpha, const float* A, std::size_t lda, std::size_t stride_a, const float* B,
                  std::size_t ldb, std::size_t stride_b, float beta, float* C, std::size_t ldc,
                  std::size_t stride_c) {
  for (std::size_t i = 0; i < batch; ++i) {
    gemm(op_a, op_b, M, N, K, alpha, A + i * stride_a, lda, B + i * stride_b, ldb, beta,
         C + i * stride_c, ldc);
  }
}

Tensor2 matmul(const Tensor2& a, const Tensor2& b, Op op_a, Op op_b) {
  const Dims d = product_dims("matmul", a.shape(0), a.shape(1), b.shape(0), b.shape(1), op_a, op_b,
                              shape_string(a.shape()), shape_string(b.shape()));
  Tensor2 c = Tensor2::from_shape({d.m, d.n});
  gemm(op_a, op_b, d.m, d.n, d.k, 1.0f, a.data(), a.shape(1), b.data(), b.shape(1), 0.0f, c.data(),
       d.n);
  return c;
}

Tensor3 matmul(const Tensor3& a, const Tensor3& b, Op op_a, Op op_b) {
  require(a.shape(0) == b.shape(0), "matmul",
          "batch sizes differ: a " + shape_string(a.shape()) + ", b " + shape_string(b.shape()));
  const Dims d = product_dims("matmul", a.shape(1), a.shape(2), b.shape(1), b.shape(2), op_a, op_b,
                              shape_string(a.shape()), shape_string(b.shape()));
  Tensor3 c = Tensor3::from_shape({a.shape(0), d.m, d.n});
  gemm_batched(a.shape(0), op_a, op_b, d.m, d.n, d.k, 1.0f, a.data(), a.shape(2),
               a.shape(1) * a.shape(2), b.data(), b.shape(2), b.shape(1) * b.shape(2), 0.0f,
               c.data(), d.n, d.m * d.n);
  return c;
}

Tensor4 matmul(const Tensor4& a, const Tensor4& b, Op op_a, Op op_b) {
  require(a.shape(0) == b.shape(0) && a.shape(1) == b.shape(1), "matmul",
          "leading axes differ: a " + shape_string(a.shape()) + ", b " + shape_string(b.shape()));
  const Dims d = product_dims("matmul", a.shape(2), a.shape(3), b.shape(2), b.shape(3), op_a, op_b,
                              shape_string(a.shape()), shape_string(b.shape()));
  Tensor4 c = Tensor4::from_shape({a.shape(0), a.shape(1), d.m, d.n});
  gemm_batched(a.shape(0) * a.shape(1), op_a, op_b, d.m, d.n, d.k, 1.0f, a.data(), a.shape(3),
               a.shape(2) * a.shape(3), b.data(), b.shape(3), b.shape(2) * b.shape(3), 0.0f,
               c.data(), d.n, d.m * d.n);
  return c;
}

}  // namespace tfm
