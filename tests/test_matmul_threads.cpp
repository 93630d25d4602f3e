// The matrix-product kernels the way training runs them (issue #14): at the model's real sizes
// and, under ctest, also on 2 threads (tests/CMakeLists.txt runs the "[threads]" cases again with
// OMP_NUM_THREADS=2), so that gemm()'s split of a big product across the threads is exercised:
// by rows of C, by its columns, or by the inner dimension (partial products added in order), with
// pointer arithmetic that differs for a transposed operand. gemm_split says where the slices of
// each shape begin and end. Every result is checked against a plain double-precision loop.
// The cases are hidden ([.]) from the default run, which takes the same slices one after the
// other on one thread: ctest runs them in its two_threads entry, and `bin/tfm_tests "[threads]"`
// runs them on the threads the environment gives.
//
// The bound. Every operand holds exact float32 values; a float32 product C = alpha op(A) op(B)
// + beta C0 computed in ANY summation order (blocked, with or without FMA) satisfies, for each
// entry (Higham, Accuracy and Stability of Numerical Algorithms, §3.1 and §3.5),
//   |C_ij - exact_ij| <= gamma_{K+2} (|alpha| sum_k |a_ik b_kj| + |beta C0_ij|),
//   gamma_n = n u / (1 - n u), u = 2^-24,
// K roundings for the dot product, one for alpha, one for adding C0 (or the bias). The
// reference is computed in double (its own error is ~2^-29 times smaller), so the bound is
// rigorous: these tests cannot fail by bad luck. It is also tight enough to catch the bugs that
// matter: a slice computed from the wrong rows or columns (the pointer arithmetic of the split)
// gives entries off by about their own size, ~sqrt(K / 9) for inputs uniform in [-1, 1), while
// the bound is ~K^2 u / 4: 1e-3 for K = 256 and 0.4 for K = 5120, against |C_ij| ~ 5 and ~ 24.
// In practice OpenBLAS's errors stay well below the bound (measured: worst ratio 0.13, in the
// small attention products; ~0.02 in the big ones; the report prints it).
//
// What is checked: small products in full; the big ones (up to 5120 x 1024 x 256 multiply-adds)
// on full rows and full columns of C chosen to include both sides of every slice boundary and the
// first and last row and column, plus ~two dozen more spread over each axis: every slice is hit
// in its first, last and inner rows, and every row slice meets every column.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <xtensor/xmanipulation.hpp>

#include "tfm/core/matmul.hpp"
#include "tfm/core/random.hpp"
#include "tfm/core/tensor.hpp"
#include "tfm/engine/machine.hpp"

using namespace tfm;

namespace {

constexpr double kUnitRoundoff = 0x1.0p-24;

// A row-major matrix of doubles.
struct Dense {
  std::size_t rows = 0, cols = 0;
  std::vector<double> v;
  const double* row(std::size_t i) const { return v.data() + i * cols; }
};

// The [rows, cols] float matrix at p, transposed or not, in double.
Dense as_double(const float* p, std::size_t rows, std::size_t cols, bool transpose) {
  Dense d{transpose ? cols : rows, transpose ? rows : cols, std::vector<double>(rows * cols)};
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j)
      (transpose ? d.v[j * rows + i] : d.v[i * cols + j]) = p[i * cols + j];
  return d;
}

// Rows (or columns) of C to check: all of them if `extent` <= `all_up_to`, else the first two,
// the last two, both sides of every boundary between the slices of a split into `parts`, and
// about `spread` more at an odd stride.
std::vector<bool> chosen(std::size_t extent, std::size_t parts, std::size_t all_up_to,
                         std::size_t spread) {
  std::vector<bool> pick(extent, extent <= all_up_to);
  auto add = [&](std::size_t i) {
    if (i < extent) pick[i] = true;
  };
  add(0), add(1), add(extent - 2), add(extent - 1);
  const std::size_t slice = (extent + parts - 1) / parts;
  for (std::size_t p = 1; p < parts; ++p) add(p * slice - 1), add(p * slice), add(p * slice + 1);
  const std::size_t stride = std::max<std::size_t>(1, extent / spread) | 1;
  for (std::size_t i = 3; i < extent; i += stride) add(i);
  return pick;
}

// How many slices of C's rows (or columns) gemm() cuts [m, k] · [k, n] into: 1 when it cuts
// another side, or nothing.
std::size_t slices_along(GemmSplit::Along along, std::size_t m, std::size_t n, std::size_t k) {
  const GemmSplit split = gemm_split(m, n, k);
  return split.along == along ? split.parts : 1;
}
std::size_t row_slices(std::size_t m, std::size_t n, std::size_t k) {
  return slices_along(GemmSplit::Along::kRows, m, n, k);
}
std::size_t column_slices(std::size_t m, std::size_t n, std::size_t k) {
  return slices_along(GemmSplit::Along::kColumns, m, n, k);
}

struct Report {
  double worst = 0.0;  // largest |error| / bound
  std::size_t i = 0, j = 0, checked = 0;
  double got = 0.0, exact = 0.0, bound = 0.0;
  std::string describe() const {
    std::ostringstream s;
    s << checked << " entries checked; worst error/bound " << worst << " at (" << i << ", " << j
      << "): got " << got << ", exact " << exact << ", bound " << bound;
    return s.str();
  }
};

// Checks c [M, N] (flat, row-major) against alpha op(A) op(B) + c0 (c0 [M, N] flat, or a bias
// [N] added to every row, or nothing), where op_a = op(A) [M, K] and op_bt = op(B)ᵀ [N, K], on the
// chosen rows and columns (every entry of a chosen row, every entry of a chosen column).
Report check_product(const float* c, const Dense& op_a, const Dense& op_bt, double alpha,
                     const float* c0, const float* bias, const std::vector<bool>& rows,
                     const std::vector<bool>& cols) {
  const std::size_t M = op_a.rows, N = op_bt.rows, K = op_a.cols;
  REQUIRE(op_bt.cols == K);
  const double gamma = (K + 2) * kUnitRoundoff / (1.0 - (K + 2) * kUnitRoundoff);
  Report r;
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      if (!rows[i] && !cols[j]) continue;
      const double* a = op_a.row(i);
      const double* b = op_bt.row(j);
      // Four partial sums (independent chains, so the loop runs ~4 times faster); in double,
      // their rounding is still ~2^-29 times that of the float32 product.
      double dot[4] = {0, 0, 0, 0}, mag[4] = {0, 0, 0, 0};
      std::size_t k = 0;
      for (; k + 4 <= K; k += 4)
        for (std::size_t l = 0; l < 4; ++l) {
          const double ab = a[k + l] * b[k + l];
          dot[l] += ab;
          mag[l] += std::abs(ab);
        }
      for (; k < K; ++k) dot[0] += a[k] * b[k], mag[0] += std::abs(a[k] * b[k]);
      const double sum = (dot[0] + dot[1]) + (dot[2] + dot[3]);
      const double magnitude = (mag[0] + mag[1]) + (mag[2] + mag[3]);
      const double add = c0 ? c0[i * N + j] : bias ? bias[j] : 0.0;
      const double exact = alpha * sum + add;
      const double bound = gamma * (std::abs(alpha) * magnitude + std::abs(add)) + 1e-30;
      const double got = c[i * N + j];
      const double ratio = std::abs(got - exact) / bound;
      ++r.checked;
      if (!(ratio <= r.worst)) r = {ratio, i, j, r.checked, got, exact, bound};  // NaN counts too
    }
  return r;
}

const char* name(Op op) {
  return op == Op::kPlain ? "plain" : "transposed";
}

// A matrix stored so that op(stored) is [rows, cols] (the transpose stored for kTransposed).
Tensor2 stored(std::size_t rows, std::size_t cols, Op op, Rng& rng) {
  Tensor2 t = Tensor2::from_shape(op == Op::kPlain ? Tensor2::shape_type{rows, cols}
                                                   : Tensor2::shape_type{cols, rows});
  rng.fill_uniform(t, -1.0f, 1.0f);
  return t;
}

// A [B, L, cols] tensor whose B·L rows are `rows` (L = 40 if it divides, the windows' length).
Tensor3 as_positions(const Tensor2& m) {
  const std::size_t rows = m.shape(0), len = rows % 40 == 0 ? 40 : 1;
  Tensor3 t = Tensor3::from_shape({rows / len, len, m.shape(1)});
  std::copy(m.begin(), m.end(), t.begin());
  return t;
}

// The double operands of check_product: op(a) [M, K] and op(b)ᵀ [N, K], from a and b as stored.
Dense op_of_a(const Tensor2& a, Op op) {
  return as_double(a.data(), a.shape(0), a.shape(1), op == Op::kTransposed);
}
Dense op_of_b_transposed(const Tensor2& b, Op op) {
  return as_double(b.data(), b.shape(0), b.shape(1), op == Op::kPlain);
}

// Whether the process was started with `name` in its environment. getenv cannot tell: the
// library's set-up sets OPENBLAS_CORETYPE itself when it chooses the kernels, and
// /proc/self/environ keeps the environment as it was at the start.
bool in_environment_at_start(const std::string& name) {
  std::ifstream start_env("/proc/self/environ", std::ios::binary);
  for (std::string entry; std::getline(start_env, entry, '\0');)
    if (entry.rfind(name + "=", 0) == 0) return true;
  return false;
}

}  // namespace

TEST_CASE("matmul kernels: the products run on the threads the environment asks for",
          "[matmul][threads][.]") {
  // ctest's two_threads entry runs the [threads] cases with TFM_EXPECT_THREADS=2 (and
  // OMP_NUM_THREADS=2): without this check a change to the start-up configuration could silently make that run
  // single-threaded, and the split path would go untested again.
  const char* expected = std::getenv("TFM_EXPECT_THREADS");
  INFO("compute_threads() = " << compute_threads());
  CHECK(compute_threads() >= 1);
  if (expected != nullptr) CHECK(compute_threads() == std::atoi(expected));
}

TEST_CASE("matmul kernels: a CPU with AVX2 never runs OpenBLAS's SSE3 fallback kernels",
          "[matmul]") {
  // OpenBLAS falls back to "Prescott" on a CPU model newer than itself; machine.cpp then chooses
  // kernels the CPU can run. Without that, chapter 11 trained three times slower on such a CPU.
  INFO("OpenBLAS kernels: " << blas_kernels());
  if (__builtin_cpu_supports("avx2") && !in_environment_at_start("OPENBLAS_CORETYPE"))
    CHECK(blas_kernels() != "Prescott");
}

TEST_CASE(
    "matmul kernels: 2-D products at the Linear's size, every transpose combination, "
    "split by rows and by columns",
    "[matmul][threads][.]") {
  // [5120, 256] x [256, 1024]: the vowels preset's first FFN layer over a batch of 128 x 40
  // positions (M >= N: split by rows), and its mirror [1024, 256] x [256, 5120] (N > M: split
  // by columns); alpha = 1/sqrt(32), attention's scale, which is not a power of two.
  Rng rng(14);
  const float alpha = 1.0f / std::sqrt(32.0f);
  struct Shape {
    std::size_t m, n, k;
  };
  for (const Shape s : {Shape{5120, 1024, 256}, Shape{1024, 5120, 256}})
    for (const Op op_a : {Op::kPlain, Op::kTransposed})
      for (const Op op_b : {Op::kPlain, Op::kTransposed}) {
        INFO("[" << s.m << ", " << s.k << "] x [" << s.k << ", " << s.n << "], a " << name(op_a)
                 << ", b " << name(op_b));
        const Tensor2 a = stored(s.m, s.k, op_a, rng), b = stored(s.k, s.n, op_b, rng);
        const Tensor2 c = matmul(a, b, op_a, op_b, alpha);
        REQUIRE(c.shape() == Tensor2::shape_type{s.m, s.n});
        const Report r =
            check_product(c.data(), op_of_a(a, op_a), op_of_b_transposed(b, op_b), alpha, nullptr,
                          nullptr, chosen(s.m, row_slices(s.m, s.n, s.k), 0, 24),
                          chosen(s.n, column_slices(s.m, s.n, s.k), 0, 24));
        INFO(r.describe());
        CHECK(r.worst <= 1.0);
      }
}

TEST_CASE("matmul kernels: linear and positions x matrix at the FFN's and the generator's sizes",
          "[matmul][threads][.]") {
  // vowels, batch 128 x 40 = 5120 positions: linear1 x W1ᵀ + b1 ([5120, 256] -> [5120, 1024]),
  // with and without its bias; the same product through matmul(x, W1, kTransposed); the input
  // gradient dy W1 ([5120, 1024] x [1024, 256]); and the generator (29 outputs, an odd extent:
  // [5120, 256] -> [5120, 29], still big enough to be split).
  Rng rng(15);
  const Tensor3 x = as_positions(stored(5120, 256, Op::kPlain, rng));
  const Tensor3 grad_y = as_positions(stored(5120, 1024, Op::kPlain, rng));
  const Dense x_rows = as_double(x.data(), 5120, 256, false);
  for (const std::size_t out : {std::size_t{1024}, std::size_t{29}}) {
    INFO("linear 256 -> " << out);
    const Tensor2 w = stored(out, 256, Op::kPlain, rng);
    Tensor1 bias = Tensor1::from_shape({out});
    rng.fill_uniform(bias, -1.0f, 1.0f);
    const Dense w_rows = as_double(w.data(), out, 256, false);  // op(Wᵀ)ᵀ = W
    const auto rows = chosen(5120, row_slices(5120, out, 256), 0, 24),
               cols = chosen(out, column_slices(5120, out, 256), 64, 24);

    const Tensor3 y = linear(x, w, bias);
    REQUIRE(y.shape() == Tensor3::shape_type{128, 40, out});
    Report r = check_product(y.data(), x_rows, w_rows, 1.0, nullptr, bias.data(), rows, cols);
    INFO("with bias: " << r.describe());
    CHECK(r.worst <= 1.0);

    const Tensor3 y0 = linear(x, w, Tensor1());
    r = check_product(y0.data(), x_rows, w_rows, 1.0, nullptr, nullptr, rows, cols);
    INFO("without bias: " << r.describe());
    CHECK(r.worst <= 1.0);

    const Tensor3 y1 = matmul(x, w, Op::kTransposed);
    r = check_product(y1.data(), x_rows, w_rows, 1.0, nullptr, nullptr, rows, cols);
    INFO("matmul(x, W, kTransposed): " << r.describe());
    CHECK(r.worst <= 1.0);
  }
  // dx = dy W1: [5120, 1024] x [1024, 256], W1 as stored (kPlain).
  const Tensor2 w1 = stored(1024, 256, Op::kPlain, rng);
  const Tensor3 grad_x = matmul(grad_y, w1);
  REQUIRE(grad_x.shape() == Tensor3::shape_type{128, 40, 256});
  const Report r = check_product(grad_x.data(), as_double(grad_y.data(), 5120, 1024, false),
                                 op_of_b_transposed(w1, Op::kPlain), 1.0, nullptr, nullptr,
                                 chosen(5120, row_slices(5120, 256, 1024), 0, 24),
                                 chosen(256, column_slices(5120, 256, 1024), 0, 24));
  INFO("matmul(grad_y, W): " << r.describe());
  CHECK(r.worst <= 1.0);
}

TEST_CASE("matmul kernels: matmul_accumulate, the weight gradient summed over K = B·L = 5120",
          "[matmul][threads][.]") {
  // dW += op(a) op(b) over 128 x 40 positions, on top of what dW held (beta = 1). K is the longest
  // side, so the sum over the positions is cut (by depth): each slice of positions gives a partial
  // dW. The backward pass's form is (kTransposed, kPlain): dW1 [1024, 256] += dyᵀ x and dW2
  // [256, 1024] += dy2ᵀ h; the other three combinations at the first shape too, with the operands
  // stored as their ops need. Then K = 3001 (slices of 751 and, last, 748), every entry checked.
  Rng rng(16);
  struct Case {
    std::size_t m, n, k;
    Op op_a, op_b;
  };
  for (const Case t : {Case{1024, 256, 5120, Op::kTransposed, Op::kPlain},
                       Case{256, 1024, 5120, Op::kTransposed, Op::kPlain},
                       Case{1024, 256, 5120, Op::kPlain, Op::kPlain},
                       Case{1024, 256, 5120, Op::kPlain, Op::kTransposed},
                       Case{1024, 256, 5120, Op::kTransposed, Op::kTransposed},
                       Case{101, 67, 3001, Op::kTransposed, Op::kPlain},
                       Case{101, 67, 3001, Op::kPlain, Op::kPlain},
                       Case{101, 67, 3001, Op::kPlain, Op::kTransposed},
                       Case{101, 67, 3001, Op::kTransposed, Op::kTransposed}}) {
    INFO("dW [" << t.m << ", " << t.n << "] += a " << name(t.op_a) << " x b " << name(t.op_b)
                << ", K = " << t.k);
    REQUIRE(gemm_split(t.m, t.n, t.k).along == GemmSplit::Along::kDepth);
    const Tensor2 a2 = stored(t.m, t.k, t.op_a, rng), b2 = stored(t.k, t.n, t.op_b, rng);
    const Tensor3 a = as_positions(a2), b = as_positions(b2);
    Tensor2 grad_w = stored(t.m, t.n, Op::kPlain, rng);
    const Tensor2 before = grad_w;
    matmul_accumulate(grad_w, a, b, t.op_a, t.op_b);
    const Report r =
        check_product(grad_w.data(), op_of_a(a2, t.op_a), op_of_b_transposed(b2, t.op_b), 1.0,
                      before.data(), nullptr, chosen(t.m, 1, 128, 8), chosen(t.n, 1, 128, 8));
    INFO(r.describe());
    CHECK(r.worst <= 1.0);
  }
}

TEST_CASE("matmul kernels: batched attention products at [64, 4, 40, 32], every form",
          "[matmul][threads][.]") {
  // vowels-small's attention: batch 64, 4 heads, 40 positions, d_k 32. 256 small products per
  // call, run one per thread: scores Q Kᵀ / sqrt(d_k), context P V, and the backward's dP = dC Vᵀ,
  // dV = Pᵀ dC, dQ = dS K, dK = dSᵀ Q, plus (kTransposed, kTransposed). Every entry checked.
  Rng rng(17);
  struct Form {
    const char* what;
    std::size_t m, n, k;
    Op op_a, op_b;
    float alpha;
  };
  const float scale = 1.0f / std::sqrt(32.0f);
  for (const Form f : {Form{"Q Kᵀ", 40, 40, 32, Op::kPlain, Op::kTransposed, scale},
                       Form{"P V", 40, 32, 40, Op::kPlain, Op::kPlain, 1.0f},
                       Form{"dC Vᵀ", 40, 40, 32, Op::kPlain, Op::kTransposed, 1.0f},
                       Form{"Pᵀ dC", 40, 32, 40, Op::kTransposed, Op::kPlain, 1.0f},
                       Form{"dS K", 40, 32, 40, Op::kPlain, Op::kPlain, scale},
                       Form{"dSᵀ Q", 40, 32, 40, Op::kTransposed, Op::kPlain, scale},
                       Form{"Aᵀ Bᵀ", 40, 32, 40, Op::kTransposed, Op::kTransposed, 1.0f}}) {
    INFO(f.what);
    const std::size_t ar = f.op_a == Op::kPlain ? f.m : f.k, ac = f.op_a == Op::kPlain ? f.k : f.m;
    const std::size_t br = f.op_b == Op::kPlain ? f.k : f.n, bc = f.op_b == Op::kPlain ? f.n : f.k;
    Tensor4 a = Tensor4::from_shape({64, 4, ar, ac}), b = Tensor4::from_shape({64, 4, br, bc});
    rng.fill_uniform(a, -1.0f, 1.0f);
    rng.fill_uniform(b, -1.0f, 1.0f);
    const Tensor4 c = matmul(a, b, f.op_a, f.op_b, f.alpha);
    REQUIRE(c.shape() == Tensor4::shape_type{64, 4, f.m, f.n});
    Report worst;
    for (std::size_t i = 0; i < 64 * 4; ++i) {
      const Report r = check_product(
          c.data() + i * f.m * f.n,
          as_double(a.data() + i * ar * ac, ar, ac, f.op_a == Op::kTransposed),
          as_double(b.data() + i * br * bc, br, bc, f.op_b == Op::kPlain), f.alpha, nullptr,
          nullptr, std::vector<bool>(f.m, true), std::vector<bool>(f.n, true));
      if (!(r.worst <= worst.worst)) worst = r, worst.i += i * 1000000;  // product i, row, column
    }
    INFO("worst over the 256 products (i = product * 10^6 + row): " << worst.describe());
    CHECK(worst.worst <= 1.0);
  }
}

TEST_CASE("matmul kernels: odd extents split both ways, 2-D and batched, every entry",
          "[matmul][threads][.]") {
  // Extents that do not divide by 2 (or by 3, 4): M = 1001 >= N (split by rows, slices of 501 and
  // 500), N = 1001 > M (split by columns), K = 301; big enough (60 M multiply-adds) to be split.
  // Then K = 1999 > M, N (split by depth: slices of 500 and, last, 499) with beta = 0, so the
  // partials are added into memory that held nothing. The batched form runs the split products
  // one after the other, each at its own offset.
  Rng rng(18);
  using Along = GemmSplit::Along;
  struct Shape {
    std::size_t m, n, k;
    Along along;
  };
  for (const Shape s : {Shape{1001, 200, 301, Along::kRows}, Shape{200, 1001, 301, Along::kColumns},
                        Shape{120, 90, 1999, Along::kDepth}})
    for (const Op op_a : {Op::kPlain, Op::kTransposed})
      for (const Op op_b : {Op::kPlain, Op::kTransposed}) {
        INFO("[" << s.m << ", " << s.k << "] x [" << s.k << ", " << s.n << "], a " << name(op_a)
                 << ", b " << name(op_b));
        REQUIRE(gemm_split(s.m, s.n, s.k).along == s.along);
        const Tensor2 a = stored(s.m, s.k, op_a, rng), b = stored(s.k, s.n, op_b, rng);
        const Dense grad_a = op_of_a(a, op_a), dbt = op_of_b_transposed(b, op_b);
        const std::vector<bool> all_rows(s.m, true), no_cols(s.n, false);
        const Tensor2 c = matmul(a, b, op_a, op_b);
        Report r = check_product(c.data(), grad_a, dbt, 1.0, nullptr, nullptr, all_rows, no_cols);
        INFO("2-D: " << r.describe());
        CHECK(r.worst <= 1.0);

        if (op_a == op_b) continue;  // the batched form: the two mixed combinations
        // A batch of 2: the second product's operands are the first's, negated, so it has its own
        // values and the same check applies to -c.
        Tensor3 a3 = Tensor3::from_shape({2, a.shape(0), a.shape(1)});
        Tensor3 b3 = Tensor3::from_shape({2, b.shape(0), b.shape(1)});
        std::copy(a.begin(), a.end(), a3.begin());
        std::transform(a.begin(), a.end(), a3.begin() + a.size(), [](float v) { return -v; });
        std::copy(b.begin(), b.end(), b3.begin());
        std::copy(b.begin(), b.end(), b3.begin() + b.size());
        const Tensor3 c3 = matmul(a3, b3, op_a, op_b);
        REQUIRE(c3.shape() == Tensor3::shape_type{2, s.m, s.n});
        r = check_product(c3.data(), grad_a, dbt, 1.0, nullptr, nullptr, all_rows, no_cols);
        INFO("batched, product 0: " << r.describe());
        CHECK(r.worst <= 1.0);
        r = check_product(c3.data() + s.m * s.n, grad_a, dbt, -1.0, nullptr, nullptr, all_rows,
                          no_cols);
        INFO("batched, product 1: " << r.describe());
        CHECK(r.worst <= 1.0);
      }
}
