// This file alone includes <cblas.h>: xtensor-blas declares its own cblas symbols and the two
// headers cannot meet in one translation unit.
#include "tfm/core/matmul.hpp"

#include <cblas.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "tfm/core/profile.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace tfm {
namespace {

CBLAS_TRANSPOSE to_cblas(Op op) { return op == Op::kPlain ? CblasNoTrans : CblasTrans; }

// Kernels. Debian's OpenBLAS (0.3.21) picks its kernels for the CPU when it is loaded, from a
// table of the CPU models it knew when it was released. A newer model is not in it (an Intel
// Xeon of family 6, model 207, for one): OpenBLAS then falls back to its "Prescott" kernels, SSE3
// only, and chapter 11 trains three times slower (measured: 4,644 against 16,000 tokens/s). The
// variable OPENBLAS_CORETYPE names the kernels to use instead; when the user has not set it and
// OpenBLAS fell back, pick the kernels the CPU's vector units can run, and start OpenBLAS's
// kernel selection again (it reads the variable then). This runs before any product.
extern "C" void gotoblas_dynamic_init(void);  // exported by OpenBLAS built with DYNAMIC_ARCH
extern "C" void gotoblas_dynamic_quit(void);

const char* kernels_for_this_cpu() {
  // This runs from a static initialiser, maybe before the one that fills in what
  // __builtin_cpu_supports reads (GCC's manual asks for this call in such code).
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
  return nullptr;  // Prescott's SSE3 kernels are the best this CPU can run anyway
}

bool choose_blas_kernels() {
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr) return false;  // the user's choice stands
  if (std::string(openblas_get_corename()) != "Prescott") return false;
  const char* kernels = kernels_for_this_cpu();
  if (kernels == nullptr) return false;
  setenv("OPENBLAS_CORETYPE", kernels, 1);
  gotoblas_dynamic_quit();
  gotoblas_dynamic_init();
  return true;
}
const bool kKernelsChosen = choose_blas_kernels();

// Threads. The library uses ONE pool of threads, OpenMP's: layer loops (softmax rows, layer norm
// rows, the heads of attention) and the big products below all share it. OpenBLAS has a pool of
// its own; two pools that each keep their threads spinning between jobs fight over the cores
// (PyTorch from Debian shows it: 2 threads no faster than 1). So OpenBLAS runs single-threaded,
// and gemm() splits a big product into one slice per OpenMP thread itself.
//
// The number of threads is OMP_NUM_THREADS if set, else OPENBLAS_NUM_THREADS (what the tests and
// the tutorial set), else one per core. Configured once, before main, by this initialiser.
int configure_threads() {
#ifdef _OPENMP
  if (std::getenv("OMP_NUM_THREADS") == nullptr) omp_set_num_threads(openblas_get_num_threads());
  openblas_set_num_threads(1);
  return omp_get_max_threads();
#else
  return 1;  // built without OpenMP: every product is one call, threaded by OpenBLAS itself
#endif
}
const int kThreads = configure_threads();

// A product smaller than this (M*N*K multiply-adds) is not worth splitting across threads.
constexpr double kSplitThreshold = 1 << 21;

void sgemm(Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K, float alpha, const float* A,
           std::size_t lda, const float* B, std::size_t ldb, float beta, float* C, std::size_t ldc) {
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
              b_shape + (op_b == Op::kTransposed ? "ᵀ" : "") + " (" + std::to_string(ka) +
              " vs " + std::to_string(kb) + ")");
  return {m, n, ka};
}

// C = alpha * op(A) * op(B) + beta * C for row-major matrices, where op(A) is [M, K], op(B) is
// [K, N] and C is [M, N]; lda, ldb, ldc are the row strides as stored.
void gemm(Op op_a, Op op_b, std::size_t M, std::size_t N, std::size_t K, float alpha, const float* A,
          std::size_t lda, const float* B, std::size_t ldb, float beta, float* C, std::size_t ldc) {
  if (M == 0 || N == 0) return;
  const double work = static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
  const std::size_t parts = work < kSplitThreshold ? 1 : static_cast<std::size_t>(kThreads);
  if (parts <= 1) {
    sgemm(op_a, op_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    return;
  }
  // A big product on several threads: C is cut into `parts` slices along its longer side, and
  // each thread computes its slice as an ordinary (single-threaded) product of a slice of A
  // (rows of C) or of B (columns of C) with the whole other operand. Every entry of C is still
  // one dot product over all of K. Whether OpenBLAS adds its terms in the same order for a slice as
  // for the whole depends on its kernels: on Zen 4 (Cooperlake kernels) training gave bit-identical
  // losses on 1 and 2 threads, on Zen 3 (Haswell kernels) not (60 steps of chapter 11's default:
  // loss 2.2990 on 1 thread, 2.2993 on 2). Each thread count is deterministic on its own.
  const bool by_rows = M >= N;
  const std::size_t extent = by_rows ? M : N;
  const std::size_t slice = (extent + parts - 1) / parts;
#pragma omp parallel for schedule(static, 1) num_threads(static_cast<int>(parts))
  for (std::size_t p = 0; p < parts; ++p) {
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
                  float alpha, const float* A, std::size_t lda, std::size_t stride_a, const float* B,
                  std::size_t ldb, std::size_t stride_b, float beta, float* C, std::size_t ldc,
                  std::size_t stride_c) {
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

int matmul_threads() { return kThreads; }

std::string blas_kernels() { return openblas_get_corename(); }

Tensor2 matmul(const Tensor2& a, const Tensor2& b, Op op_a, Op op_b, float alpha) {
  const Dims d = product_dims("matmul", a.shape(0), a.shape(1), b.shape(0), b.shape(1), op_a, op_b,
                              shape_string(a.shape()), shape_string(b.shape()));
  const profile::Scope timed(profiled(op_a, op_b, 1, d));
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
  gemm(op_a, op_b, d.m, d.n, d.k, 1.0f, a.data(), a.shape(2), b.data(), b.shape(2), 1.0f,
       c.data(), d.n);
}

Tensor3 linear(const Tensor3& x, const Tensor2& weight, const Tensor1& bias) {
  const std::size_t rows = x.shape(0) * x.shape(1), out = weight.shape(0), in = weight.shape(1);
  require_shape("linear", "input", x, {kAnyExtent, kAnyExtent, in}, "(batch, len, in_features)");
  const bool has_bias = bias.size() != 0;
  if (has_bias) require_shape("linear", "bias", bias, {out}, "(out_features)");
  const profile::Scope timed(profiled(Op::kPlain, Op::kTransposed, 1, Dims{rows, out, in}));
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
