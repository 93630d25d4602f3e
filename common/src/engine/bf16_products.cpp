// Products on bf16 operands with fp32 sums (bf16_products.hpp): the operands are rounded with the
// CPU's conversion instruction, then oneDNN's matmul multiplies them on the best bf16 kernels this
// CPU has (AVX512-BF16's dot products, or AMX's tiles).
#include "tfm/engine/bf16_products.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <tuple>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tfm {

std::uint16_t bf16_from_float(float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  const std::uint32_t exponent = bits & 0x7F800000u, mantissa = bits & 0x007FFFFFu;
  if (exponent == 0x7F800000u && mantissa != 0)  // NaN: keep it a NaN (quiet)
    return static_cast<std::uint16_t>((bits >> 16) | 0x0040u);
  if (exponent == 0) return static_cast<std::uint16_t>((bits >> 16) & 0x8000u);  // subnormal: ±0
  // To the nearest; a tie goes to the even one: add 0x7FFF, plus 1 when the kept part is odd.
  bits += 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>(bits >> 16);
}

float float_from_bf16(std::uint16_t bits) {
  const std::uint32_t widened = static_cast<std::uint32_t>(bits) << 16;
  float x;
  std::memcpy(&x, &widened, sizeof x);
  return x;
}

#if defined(__x86_64__)
namespace {
// Sixteen floats at a time with VCVTNEPS2BF16; the last partial block under a mask. A function of
// its own, called per chunk: the compiler may not carry a target attribute into OpenMP's region.
__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) void round_chunk(
    const float* in, std::size_t count, std::uint16_t* out) {
  for (std::size_t i = 0; i < count; i += 16) {
    const std::size_t left = count - i;
    const __mmask16 lanes = left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
    const __m512 x = _mm512_maskz_loadu_ps(lanes, in + i);
    const __m256i rounded = reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(x));
    _mm256_mask_storeu_epi16(out + i, lanes, rounded);
  }
}
}  // namespace

void round_to_bf16(const float* in, std::size_t count, std::uint16_t* out) {
  constexpr std::size_t kChunk = 1 << 14;  // 64 KiB of floats a call
  const std::size_t chunks = (count + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static) if (chunks > 4)
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::size_t begin = c * kChunk;
    round_chunk(in + begin, std::min(kChunk, count - begin), out + begin);
  }
}
#else
void round_to_bf16(const float* in, std::size_t count, std::uint16_t* out) {
  for (std::size_t i = 0; i < count; ++i) out[i] = bf16_from_float(in[i]);
}
#endif

namespace {

using dnnl::memory;

// One matmul per kind of product: oneDNN builds (and for AMX, compiles) a kernel for each set of
// dimensions and strides, which costs far more than running it, so each is made once.
using ProductKey =
    std::tuple<std::size_t, std::size_t, std::size_t, std::size_t, bool, bool, float, float,
               std::size_t, std::size_t, std::size_t, std::size_t, std::size_t, std::size_t>;

struct Kernel {
  memory::desc a, b, c;
  dnnl::matmul matmul;
};

const dnnl::engine& cpu() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

// The elements an operand's products span in memory, from the first to the last.
std::size_t span(std::size_t batch, std::size_t stride, std::size_t rows, std::size_t cols,
                 std::size_t ld) {
  const std::size_t one = (rows - 1) * ld + cols;
  return stride == 0 ? one : (batch - 1) * stride + one;
}

// op(X) `[rows, cols]` of X stored with row stride ld, products stride apart (0: one for all).
// A single product is described as a matrix: oneDNN picks slower kernels for a batch of one.
memory::desc operand(memory::data_type type, std::size_t batch, std::size_t stride,
                     std::size_t rows, std::size_t cols, bool transposed, std::size_t ld) {
  const auto d = [](std::size_t x) { return static_cast<memory::dim>(x); };
  const memory::dim row_step = transposed ? 1 : d(ld), column_step = transposed ? d(ld) : 1;
  if (batch == 1) return memory::desc({d(rows), d(cols)}, type, {row_step, column_step});
  const memory::dims dims{stride == 0 ? 1 : d(batch), d(rows), d(cols)};
  return memory::desc(dims, type, {d(stride == 0 ? rows * cols : stride), row_step, column_step});
}

const Kernel& kernel_for(const BatchedProduct& p) {
  static std::mutex mutex;
  static std::map<ProductKey, Kernel> kernels;
  const ProductKey key{p.batch, p.m,   p.n,        p.k,   p.transpose_a, p.transpose_b, p.alpha,
                       p.beta,  p.lda, p.stride_a, p.ldb, p.stride_b,    p.ldc,         p.stride_c};
  const std::lock_guard<std::mutex> lock(mutex);
  const auto found = kernels.find(key);
  if (found != kernels.end()) return found->second;
  Kernel k;
  k.a = operand(memory::data_type::bf16, p.batch, p.stride_a, p.m, p.k, p.transpose_a, p.lda);
  k.b = operand(memory::data_type::bf16, p.batch, p.stride_b, p.k, p.n, p.transpose_b, p.ldb);
  k.c = operand(memory::data_type::f32, p.batch, p.stride_c, p.m, p.n, false, p.ldc);
  dnnl::primitive_attr attributes;
  if (p.alpha != 1.0f) attributes.set_output_scales(0, {p.alpha});
  if (p.beta != 0.0f) {  // C += ...: oneDNN's "sum" adds what C held
    dnnl::post_ops sum;
    sum.append_sum(p.beta);
    attributes.set_post_ops(sum);
  }
  const dnnl::matmul::primitive_desc description(dnnl::matmul::desc(k.a, k.b, k.c), attributes,
                                                 cpu());
  k.matmul = dnnl::matmul(description);
  return kernels.emplace(key, std::move(k)).first->second;
}

}  // namespace

void bf16_products(const BatchedProduct& p) {
  // The rounded operands live in buffers of this thread, kept from one product to the next.
  thread_local std::vector<std::uint16_t> a16, b16;
  const std::size_t a_rows = p.transpose_a ? p.k : p.m, a_cols = p.transpose_a ? p.m : p.k;
  const std::size_t b_rows = p.transpose_b ? p.n : p.k, b_cols = p.transpose_b ? p.k : p.n;
  const std::size_t a_count = span(p.batch, p.stride_a, a_rows, a_cols, p.lda);
  const std::size_t b_count = span(p.batch, p.stride_b, b_rows, b_cols, p.ldb);
  if (a16.size() < a_count) a16.resize(a_count);
  if (b16.size() < b_count) b16.resize(b_count);
  round_to_bf16(p.a, a_count, a16.data());
  round_to_bf16(p.b, b_count, b16.data());

  const Kernel& k = kernel_for(p);
  thread_local dnnl::stream stream(cpu());
  memory a(k.a, cpu(), a16.data()), b(k.b, cpu(), b16.data()), c(k.c, cpu(), p.c);
  k.matmul.execute(stream, {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}});
  stream.wait();
}

}  // namespace tfm
