// bf16 products (engine/bf16_products.hpp): the rounding to bf16, bit for bit; every form of
// matmul in bf16 exact where bf16 loses nothing, and within the bound bf16's precision gives
// elsewhere. On a CPU without bf16 instructions each case says it skipped.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <xtensor/xmath.hpp>

#include "tfm/core/matmul.hpp"
#include "tfm/core/random.hpp"
#include "tfm/engine/bf16_products.hpp"
#include "tfm/engine/precision.hpp"

using namespace tfm;

namespace {

float from_bits(std::uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

// Whether the case can run here; says why not when it cannot.
bool bf16_here() {
  if (cpu_has_bf16()) return true;
  WARN("skipped: " << bf16_unavailable_reason());
  return false;
}

// Small integers, which bf16 holds exactly, as do fp32 sums of their products.
template <class T>
void fill_small_integers(T& t, Rng& rng) {
  for (float& x : t) x = std::round(8.0f * rng.uniform()) - 4.0f;
}

// bf16's unit roundoff: 8 bits of significand, so rounding changes a number by at most 2^-9 of it.
constexpr double kBf16Roundoff = 1.0 / 512;
constexpr double kFp32Roundoff = 1.0 / 16777216;

// The most an entry of op(a) op(b) computed in bf16 may differ from the fp32 product:
// each term a_i b_i changes by at most (2u + u²)|a_i b_i| when both are rounded (u = 2^-9), and
// each of the two fp32 sums of K terms is off by at most γ_K = K u₃₂ / (1 - K u₃₂) times Σ|a_i b_i|.
template <class T>
double worst_error_over_bound(const T& bf16, const T& fp32, const T& sum_of_magnitudes,
                              std::size_t k) {
  const double u = kBf16Roundoff;
  const double gamma = k * kFp32Roundoff / (1 - k * kFp32Roundoff);
  const double per_magnitude = 2 * u + u * u + gamma * (2 + 2 * u + u * u);
  double worst = 0;
  for (std::size_t i = 0; i < bf16.size(); ++i) {
    const double bound = per_magnitude * sum_of_magnitudes.flat(i);
    worst = std::max(worst, std::abs(double(bf16.flat(i)) - double(fp32.flat(i))) / bound);
  }
  return worst;
}

}  // namespace

TEST_CASE("bf16: rounding to the nearest, ties to even, NaN kept, subnormals flushed", "[bf16]") {
  CHECK(bf16_from_float(1.0f) == 0x3F80);
  CHECK(bf16_from_float(-2.0f) == 0xC000);
  CHECK(bf16_from_float(from_bits(0x3F808000)) == 0x3F80);  // a tie, kept part even: down
  CHECK(bf16_from_float(from_bits(0x3F818000)) == 0x3F82);  // a tie, kept part odd: up
  CHECK(bf16_from_float(from_bits(0x3F808001)) == 0x3F81);  // just above half: up
  CHECK(bf16_from_float(from_bits(0x3F807FFF)) == 0x3F80);  // just below half: down
  CHECK(bf16_from_float(std::numeric_limits<float>::max()) == 0x7F80);  // rounds up to +inf
  CHECK(bf16_from_float(std::numeric_limits<float>::infinity()) == 0x7F80);
  CHECK(std::isnan(float_from_bf16(bf16_from_float(std::numeric_limits<float>::quiet_NaN()))));
  CHECK(std::isnan(float_from_bf16(bf16_from_float(from_bits(0x7F800001)))));  // a NaN whose
  // payload sits in the dropped bits: rounding alone would make it +inf
  CHECK(bf16_from_float(from_bits(0x00000001)) == 0x0000);  // subnormal -> +0
  CHECK(bf16_from_float(from_bits(0x80400000)) == 0x8000);  // subnormal -> -0
  CHECK(float_from_bf16(0x4049) == 3.140625f);
}

TEST_CASE("bf16: the CPU's conversion gives the same bits as the rule, on every kind of float",
          "[bf16]") {
  if (!bf16_here()) return;
  // Random bit patterns (every exponent, NaNs and subnormals included), and a count that leaves
  // a partial block of 16 at the end.
  Rng rng(11);
  std::vector<float> in(100003);
  for (float& x : in) x = from_bits(static_cast<std::uint32_t>(rng.next_u64() >> 32));
  std::vector<std::uint16_t> out(in.size() + 1, 0xABCD);  // one past the end: never written
  round_to_bf16(in.data(), in.size(), out.data());
  std::size_t differing = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::uint16_t expected = bf16_from_float(in[i]);
    const bool same = std::isnan(in[i]) ? std::isnan(float_from_bf16(out[i])) : out[i] == expected;
    if (!same && differing++ < 5)
      UNSCOPED_INFO("input bits " << std::hex << *reinterpret_cast<const std::uint32_t*>(&in[i])
                                  << ": CPU " << out[i] << ", rule " << expected);
  }
  CHECK(differing == 0);
  CHECK(out.back() == 0xABCD);
}

TEST_CASE("bf16: every form of matmul is exact where bf16 loses nothing", "[bf16]") {
  if (!bf16_here()) return;
  // Integers in [-4, 4]: bf16 holds them, their products and the sums of up to 192 of them
  // exactly, so the bf16 product must equal the fp32 one bit for bit, in every layout the layers
  // use. Every product is big enough to run in bf16 (bf16_pays).
  Rng rng(5);
  Tensor2 a = Tensor2::from_shape({160, 128}), b = Tensor2::from_shape({128, 64});
  Tensor3 x = Tensor3::from_shape({3, 64, 128}), y = Tensor3::from_shape({3, 64, 64});
  Tensor3 bx = Tensor3::from_shape({3, 128, 128});
  Tensor4 q = Tensor4::from_shape({2, 3, 128, 64}), k = Tensor4::from_shape({2, 3, 128, 64});
  Tensor2 w = Tensor2::from_shape({96, 128}), c = Tensor2::from_shape({128, 64});
  Tensor1 bias = Tensor1::from_shape({96});
  for (auto* t : {&a, &b, &w, &c}) fill_small_integers(*t, rng);
  for (auto* t : {&x, &y, &bx}) fill_small_integers(*t, rng);
  fill_small_integers(q, rng);
  fill_small_integers(k, rng);
  fill_small_integers(bias, rng);
  const Tensor2 at = xt::transpose(a), bt = xt::transpose(b);
  const Tensor2 b_wide = xt::transpose(w);  // [128, 96]

  struct Results {
    Tensor2 nn, tn, nt, tt, accumulated;
    Tensor3 broadcast, batched, linear_with_bias;
    Tensor4 scores;
  };
  auto compute = [&] {
    Results r{matmul(a, b),
              matmul(at, b, Op::kTransposed),
              matmul(a, bt, Op::kPlain, Op::kTransposed),
              matmul(at, bt, Op::kTransposed, Op::kTransposed),
              c,
              matmul(x, b_wide),
              matmul(x, bx),
              linear(x, w, bias),
              matmul(q, k, Op::kPlain, Op::kTransposed, 0.25f)};
    matmul_accumulate(r.accumulated, x, y, Op::kTransposed, Op::kPlain);
    return r;
  };
  const Results fp32 = compute();
  Results bf16;
  {
    const PrecisionScope bf16_on(Precision::kBf16);
    bf16 = compute();
  }
  CHECK(bool(bf16.nn == fp32.nn));
  CHECK(bool(bf16.tn == fp32.tn));
  CHECK(bool(bf16.nt == fp32.nt));
  CHECK(bool(bf16.tt == fp32.tt));
  CHECK(bool(bf16.accumulated == fp32.accumulated));
  CHECK(bool(bf16.broadcast == fp32.broadcast));
  CHECK(bool(bf16.batched == fp32.batched));
  CHECK(bool(bf16.linear_with_bias == fp32.linear_with_bias));
  CHECK(bool(bf16.scores == fp32.scores));
}

TEST_CASE("bf16: products too small to gain stay fp32, bit for bit", "[bf16]") {
  if (!bf16_here()) return;
  // Attention's per-head scores at 40 positions, and one decoded token through d_model 256.
  Rng rng(9);
  Tensor4 q = Tensor4::from_shape({2, 8, 40, 32}), k = Tensor4::from_shape({2, 8, 40, 32});
  Tensor2 token = Tensor2::from_shape({1, 256}), w = Tensor2::from_shape({256, 256});
  rng.fill_normal(q, 0, 1);
  rng.fill_normal(k, 0, 1);
  rng.fill_normal(token, 0, 1);
  rng.fill_normal(w, 0, 1);
  REQUIRE_FALSE(bf16_pays(40, 40, 32));
  REQUIRE_FALSE(bf16_pays(1, 256, 256));
  const Tensor4 scores = matmul(q, k, Op::kPlain, Op::kTransposed);
  const Tensor2 projected = matmul(token, w, Op::kPlain, Op::kTransposed);
  const PrecisionScope bf16_on(Precision::kBf16);
  CHECK(bool(matmul(q, k, Op::kPlain, Op::kTransposed) == scores));
  CHECK(bool(matmul(token, w, Op::kPlain, Op::kTransposed) == projected));
}

TEST_CASE("bf16: products of normal numbers stay within the bound bf16's precision gives",
          "[bf16]") {
  if (!bf16_here()) return;
  // The model's shapes: a linear layer of d_model 256, and a weight gradient summed over 5,120
  // positions; 64 rows too (a batch of decoded tokens).
  const std::size_t rows = GENERATE(5120, 64);
  const std::size_t depth = GENERATE(256, 5120);
  INFO("[" << rows << ", " << depth << "] · [" << depth << ", 96]");
  Rng rng(7);
  Tensor2 a = Tensor2::from_shape({rows, depth}), b = Tensor2::from_shape({depth, 96});
  rng.fill_normal(a, 0, 1);
  rng.fill_normal(b, 0, 1);
  const Tensor2 fp32 = matmul(a, b);
  const Tensor2 magnitudes = matmul(Tensor2(xt::abs(a)), Tensor2(xt::abs(b)));
  Tensor2 bf16;
  {
    const PrecisionScope bf16_on(Precision::kBf16);
    bf16 = matmul(a, b);
  }
  const double worst = worst_error_over_bound(bf16, fp32, magnitudes, depth);
  INFO("worst error: " << worst << " of the bound");
  CHECK(worst <= 1.0);
  CHECK(worst > 0.0);  // the operands really were rounded
}
