// This file alone includes <cblas.h>: xtensor-blas declares its own cblas symbols and the two
// headers cannot meet in one translation unit.
#include "tfm/core/matmul.hpp"

#include <cblas.h>

#include <algorithm>
#include <string>

#include "tfm/engine/bf16_products.hpp"
#include "tfm/engine/machine.hpp"
#include "tfm/engine/precision.hpp"
#include "tfm/engine/profile.hpp"

namespace tfm {
namespace {

CBLAS_TRANSPOSE to_cblas(Op op) {
  return op == Op::kPlain ? CblasNoTrans : CblasTrans;
}

// A product smaller than this (M*N*K multiply-adds) is not worth splitting across threads.
constexpr double kSplitThreshold = 1 << 21;
// The slices of a big product: at most kMaxSlices, each at least kMinSliceExtent rows (or
// columns) of C, or at least kMinSliceDepth of the inner dimension. A slice of the depth writes a
// partial of the whole of C, which pays off only when it sums many terms, so at most
// kMaxDepthSlices of them (measured on the vowels model's weight gradients, one thread, AMD Zen 5:
// in 2 or 4 slices they ran at 92-99 % of the whole product's rate, in 8 at 85-97 %).
constexpr std::size_t kMaxSlices = 8;
constexpr std::size_t kMinSliceExtent = 64;
constexpr std::size_t kMaxDepthSlices = 4;
constexpr std::size_t kMinSliceDepth = 256;

void sgemm(Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K, float alpha,
           const float* A, std::size_t lda, const float* B, std::size_t ldb, float beta, float* C,
           std::size_t ldc) {
  if (M == 1) {  // a row times a matrix (one token decoded): OpenBLAS's sgemv is faster here
    const int step_a = op_a == Op::kPlain ? 1 : static_cast<int>(lda);
    if (beta == 0.0f) std::fill(C, C + N, 0.0f);  // C may be new memory: never read it
    if (op_b == Op::kTransposed)                  // B is [N, K]: C = B · a
      cblas_sgemv(CblasRowMajor, CblasNoTrans, static_cast<int>(N), static_cast<int>(K), alpha, B,
                  static_cast<int>(ldb), A, step_a, beta, C, 1);
    else  // B is [K, N]: C = Bᵀ · a
      cblas_sgemv(CblasRowMajor, CblasTrans, static_cast<int>(K), static_cast<int>(N), alpha, B,
                  static_cast<int>(ldb), A, step_a, beta, C, 1);
    return;
  }
  cblas_sgemm(CblasRowMajor, to_cblas(op_a), to_cblas(op_b), static_cast<int>(M),
              static_cast<int>(N), static_cast<int>(K), alpha, A, static_cast<int>(lda), B,
              static_cast<int>(ldb), beta, C, static_cast<int>(ldc));
}

struct Dims {
  std::size_t m, n, k;
};

// What the profile records of `batch` products of these dimensions.
profile::Product profiled(Op op_a, Op op_b, std::size_t batch, const Dims& d) {
  auto letter = [](Op op) { return op == Op::kPlain ? 'n' : 't'; };
  return {letter(op_a), letter(op_b), batch, d.m, d.n, d.k};
}

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
              b_shape + (op_b == Op::kTransposed ? "ᵀ" : "") + " (" + std::to_string(ka) + " vs " +
              std::to_string(kb) + ")");
  return {m, n, ka};
}

// Slices of the inner dimension K: slice p computes the partial alpha op(A_p) op(B_p), of the
// whole of C, into a buffer of its own; then C = partial_0 + partial_1 + ... + beta C, added in
// that order whichever thread computed which partial.
void gemm_by_depth(std::size_t parts, Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K,
                   float alpha, const float* A, std::size_t lda, const float* B, std::size_t ldb,
                   float beta, float* C, std::size_t ldc) {
  const std::size_t depth = (K + parts - 1) / parts;
  Tensor3 partial = Tensor3::from_shape({parts, M, N});
#pragma omp parallel for schedule(static) num_threads(compute_threads())
  for (std::size_t p = 0; p < parts; ++p) {
    const std::size_t begin = p * depth, end = std::min(K, begin + depth);
    // Columns begin..end of op(A) and rows begin..end of op(B), wherever they are stored.
    const float* A_part = op_a == Op::kPlain ? A + begin : A + begin * lda;
    const float* B_part = op_b == Op::kPlain ? B + begin * ldb : B + begin;
    sgemm(op_a, op_b, M, N, end - begin, alpha, A_part, lda, B_part, ldb, 0.0f,
          partial.data() + p * M * N, N);
  }
#pragma omp parallel for schedule(static) num_threads(compute_threads())
  for (std::size_t i = 0; i < M; ++i) {
    float* sum = partial.data() + i * N;  // partial 0's row i collects the others
    for (std::size_t p = 1; p < parts; ++p) {
      const float* row = partial.data() + (p * M + i) * N;
      for (std::size_t j = 0; j < N; ++j) sum[j] += row[j];
    }
    float* c = C + i * ldc;
    if (beta == 0.0f)  // C may be new memory: never read it
      std::copy(sum, sum + N, c);
    else
      for (std::size_t j = 0; j < N; ++j) c[j] = sum[j] + beta * c[j];
  }
}

// C = alpha * op(A) * op(B) + beta * C for row-major matrices, where op(A) is [M, K], op(B) is
// [K, N] and C is [M, N]; lda, ldb, ldc are the row strides as stored.
//
// A big product is cut into slices (gemm_split) and the threads share the slices out. A slice of
// C's rows (or columns) is an ordinary single-threaded product of a slice of A (or B) with the
// whole other operand. How many slices depends on the shape alone, never on the number of
// threads: one thread computes the same calls as two, one after the other, so the result is the
// same to the last bit whatever the thread count (a test checks it).
void gemm(Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K, float alpha,
          const float* A, std::size_t lda, const float* B, std::size_t ldb, float beta, float* C,
          std::size_t ldc) {
  if (M == 0 || N == 0) return;
  if (product_precision() == Precision::kBf16 && bf16_pays(M, N, K)) {  // oneDNN uses the threads
    bf16_products({1, M, N, K, op_a == Op::kTransposed, op_b == Op::kTransposed, alpha, beta, A,
                   lda, 0, B, ldb, 0, C, ldc, 0});
    return;
  }
  const GemmSplit split = gemm_split(M, N, K);
  if (split.along == GemmSplit::Along::kNothing) {
    sgemm(op_a, op_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    return;
  }
  if (split.along == GemmSplit::Along::kDepth) {
    gemm_by_depth(split.parts, op_a, op_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    return;
  }
  const bool by_rows = split.along == GemmSplit::Along::kRows;
  const std::size_t extent = by_rows ? M : N;
  const std::size_t slice = (extent + split.parts - 1) / split.parts;
#pragma omp parallel for schedule(static) num_threads(compute_threads())
  for (std::size_t p = 0; p < split.parts; ++p) {
    const std::size_t begin = p * slice, end = std::min(extent, begin + slice);
    if (begin >= end) continue;
    if (by_rows) {  // rows begin..end of op(A) and of C
      const float* A_part = op_a == Op::kPlain ? A + begin * lda : A + begin;
      sgemm(op_a, op_b, end - begin, N, K, alpha, A_part, lda, B, ldb, beta, C + begin * ldc, ldc);
    } else {  // columns begin..end of op(B) and of C
      const float* B_part = op_b == Op::kPlain ? B + begin : B + begin * ldb;
      sgemm(op_a, op_b, M, end - begin, K, alpha, A, lda, B_part, ldb, beta, C + begin, ldc);
    }
  }
}

// `batch` independent products; operand i starts at A + i * stride_a (likewise B, C). A stride of
// 0 reuses one operand for every product.
void gemm_batched(std::size_t batch, Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K,
                  float alpha, const float* A, std::size_t lda, std::size_t stride_a,
                  const float* B, std::size_t ldb, std::size_t stride_b, float beta, float* C,
                  std::size_t ldc, std::size_t stride_c) {
  if (product_precision() == Precision::kBf16 && bf16_pays(M, N, K)) {  // the batch in one call
    bf16_products({batch, M, N, K, op_a == Op::kTransposed, op_b == Op::kTransposed, alpha, beta, A,
                   lda, stride_a, B, ldb, stride_b, C, ldc, stride_c});
    return;
  }
  // Small products (attention's per-head [40, 40] scores) are run one per thread; a big one is
  // split by gemm() itself, so the batch is walked in order then. A batch that is small in all
  // (one decoding step of one sequence) stays on this thread: waking the others costs more.
  const double work = static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
  const bool small = work < kSplitThreshold;
  const bool worth_threads = static_cast<double>(batch) * work >= kSplitThreshold;
#pragma omp parallel for schedule(static) if (small && batch > 1 && worth_threads)
  for (std::size_t i = 0; i < batch; ++i) {
    gemm(op_a, op_b, M, N, K, alpha, A + i * stride_a, lda, B + i * stride_b, ldb, beta,
         C + i * stride_c, ldc);
  }
}

}  // namespace

GemmSplit gemm_split(std::size_t m, std::size_t n, std::size_t k) {
  const double work = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  if (work < kSplitThreshold) return {GemmSplit::Along::kNothing, 1};
  // A power of two, so that two (or four, or eight) threads get equal shares.
  auto power_of_two_at_most = [](std::size_t count) {
    std::size_t power = 1;
    while (power * 2 <= count) power *= 2;
    return power;
  };
  // Along the longest side: each slice of rows packs all of B again, each slice of columns all of
  // A, and each slice of the depth writes a partial of all of C. Cut along the longest side, every
  // slice stays a big product.
  if (k > std::max(m, n)) {
    const std::size_t parts = power_of_two_at_most(std::min(kMaxDepthSlices, k / kMinSliceDepth));
    if (parts > 1) return {GemmSplit::Along::kDepth, parts};
  }
  const std::size_t parts =
      power_of_two_at_most(std::min(kMaxSlices, std::max(m, n) / kMinSliceExtent));
  if (parts == 1) return {GemmSplit::Along::kNothing, 1};
  return {m >= n ? GemmSplit::Along::kRows : GemmSplit::Along::kColumns, parts};
}

Tensor2 matmul(const Tensor2& a, const Tensor2& b, Op op_a, Op op_b, float alpha) {
  const Dims d = product_dims("matmul", a.shape(0), a.shape(1), b.shape(0), b.shape(1), op_a, op_b,
                              shape_string(a.shape()), shape_string(b.shape()));
  const profile::Scope timed(profiled(op_a, op_b, 1, d));
  profile::count_inputs(a.data(), a.size(), b.data(), b.size());
  Tensor2 c = Tensor2::from_shape({d.m, d.n});
  gemm(op_a, op_b, d.m, d.n, d.k, alpha, a.data(), a.shape(1), b.data(), b.shape(1), 0.0f, c.data(),
       d.n);
  return c;
}

Tensor3 matmul(const Tensor3& a, const Tensor3& b, Op op_a, Op op_b, float alpha) {
  require(a.shape(0) == b.shape(0), "matmul",
          "batch sizes differ: a " + shape_string(a.shape()) + ", b " + shape_string(b.shape()));
  const Dims d = product_dims("matmul", a.shape(1), a.shape(2), b.shape(1), b.shape(2), op_a, op_b,
                              shape_string(a.shape()), shape_string(b.shape()));
  const profile::Scope timed(profiled(op_a, op_b, a.shape(0), d));
  profile::count_inputs(a.data(), a.size(), b.data(), b.size());
  Tensor3 c = Tensor3::from_shape({a.shape(0), d.m, d.n});
  gemm_batched(a.shape(0), op_a, op_b, d.m, d.n, d.k, alpha, a.data(), a.shape(2),
               a.shape(1) * a.shape(2), b.data(), b.shape(2), b.shape(1) * b.shape(2), 0.0f,
               c.data(), d.n, d.m * d.n);
  return c;
}

Tensor4 matmul(const Tensor4& a, const Tensor4& b, Op op_a, Op op_b, float alpha) {
  require(a.shape(0) == b.shape(0) && a.shape(1) == b.shape(1), "matmul",
          "leading axes differ: a " + shape_string(a.shape()) + ", b " + shape_string(b.shape()));
  const Dims d = product_dims("matmul", a.shape(2), a.shape(3), b.shape(2), b.shape(3), op_a, op_b,
                              shape_string(a.shape()), shape_string(b.shape()));
  const profile::Scope timed(profiled(op_a, op_b, a.shape(0) * a.shape(1), d));
  profile::count_inputs(a.data(), a.size(), b.data(), b.size());
  Tensor4 c = Tensor4::from_shape({a.shape(0), a.shape(1), d.m, d.n});
  gemm_batched(a.shape(0) * a.shape(1), op_a, op_b, d.m, d.n, d.k, alpha, a.data(), a.shape(3),
               a.shape(2) * a.shape(3), b.data(), b.shape(3), b.shape(2) * b.shape(3), 0.0f,
               c.data(), d.n, d.m * d.n);
  return c;
}

Tensor3 matmul(const Tensor3& x, const Tensor2& w, Op op_w) {
  const std::size_t rows = x.shape(0) * x.shape(1);
  const Dims d = product_dims("matmul", rows, x.shape(2), w.shape(0), w.shape(1), Op::kPlain, op_w,
                              shape_string(x.shape()), shape_string(w.shape()));
  const profile::Scope timed(profiled(Op::kPlain, op_w, 1, d));
  profile::count_inputs(x.data(), x.size(), w.data(), w.size());
  Tensor3 y = Tensor3::from_shape({x.shape(0), x.shape(1), d.n});
  gemm(Op::kPlain, op_w, rows, d.n, d.k, 1.0f, x.data(), x.shape(2), w.data(), w.shape(1), 0.0f,
       y.data(), d.n);
  return y;
}

void matmul_accumulate(Tensor2& c, const Tensor3& a, const Tensor3& b, Op op_a, Op op_b) {
  const std::size_t a_rows = a.shape(0) * a.shape(1), b_rows = b.shape(0) * b.shape(1);
  const Dims d = product_dims("matmul_accumulate", a_rows, a.shape(2), b_rows, b.shape(2), op_a,
                              op_b, shape_string(a.shape()), shape_string(b.shape()));
  require(c.shape(0) == d.m && c.shape(1) == d.n, "matmul_accumulate",
          "c has shape " + shape_string(c.shape()) + ", the product [" + std::to_string(d.m) +
              ", " + std::to_string(d.n) + "]");
  const profile::Scope timed(profiled(op_a, op_b, 1, d));
  profile::count_inputs(a.data(), a.size(), b.data(), b.size());
  gemm(op_a, op_b, d.m, d.n, d.k, 1.0f, a.data(), a.shape(2), b.data(), b.shape(2), 1.0f, c.data(),
       d.n);
}

Tensor3 linear(const Tensor3& x, const Tensor2& weight, const Tensor1& bias) {
  const std::size_t rows = x.shape(0) * x.shape(1), out = weight.shape(0), in = weight.shape(1);
  require_shape("linear", "input", x, {kAnyExtent, kAnyExtent, in}, "(batch, len, in_features)");
  const bool has_bias = bias.size() != 0;
  if (has_bias) require_shape("linear", "bias", bias, {out}, "(out_features)");
  const profile::Scope timed(profiled(Op::kPlain, Op::kTransposed, 1, Dims{rows, out, in}));
  profile::count_inputs(x.data(), x.size(), weight.data(), weight.size());
  Tensor3 y = Tensor3::from_shape({x.shape(0), x.shape(1), out});
  // The bias is copied into every row of y first, and the product adds to it (beta = 1).
  if (has_bias) {
#pragma omp parallel for if (rows * out > (1 << 16))
    for (std::size_t r = 0; r < rows; ++r) std::copy(bias.begin(), bias.end(), y.data() + r * out);
  }
  gemm(Op::kPlain, Op::kTransposed, rows, out, in, 1.0f, x.data(), in, weight.data(), in,
       has_bias ? 1.0f : 0.0f, y.data(), out);
  return y;
}

}  // namespace tfm
