/// \file precision.hpp
/// \brief Engine (not a lesson): the number format the matrix products read, fp32 or bf16.
///
/// Mixed precision, as PyTorch's `torch.autocast("cpu", dtype=torch.bfloat16)` does it: with
/// bf16 chosen, every product of the forward and backward passes rounds its two operands to bf16
/// and sums in fp32, on the CPU's bf16 instructions (bf16_products.hpp). Everything else stays
/// fp32: the weights and Adam's state, LayerNorm, softmax, the loss, the gradient sums. fp32 is the
/// default and the lesson's path; the layers never ask which format is on.
#pragma once

#include <string>

namespace tfm {

/// The format the products' operands are rounded to.
enum class Precision {
  kFp32,  ///< 24-bit mantissa: the products are OpenBLAS's sgemm
  kBf16   ///< 8-bit mantissa, fp32's range: the products are oneDNN's bf16 matmul
};

/// "fp32" or "bf16".
std::string precision_name(Precision precision);

/// The format of a name ("fp32", "bf16"); throws std::invalid_argument naming the accepted ones.
Precision precision_from_name(const std::string& name);

/// Whether this CPU (and its operating system) can run the bf16 products: x86's AVX512-BF16
/// instructions, which convert fp32 to bf16 and multiply-add bf16 pairs into fp32.
bool cpu_has_bf16();

/// Why bf16 cannot be chosen on this machine, in one sentence ("" when it can).
std::string bf16_unavailable_reason();

/// Chooses the format of every product from now on, on every thread. bf16 on a CPU without
/// cpu_has_bf16() throws std::runtime_error with bf16_unavailable_reason(): it is never emulated.
void set_product_precision(Precision precision);

/// The format chosen; kFp32 until set_product_precision says otherwise.
Precision product_precision();

/// Chooses a format for one scope (a test, a benchmark): the one before it comes back when the
/// scope ends, even by an exception.
class PrecisionScope {
 public:
  /// Chooses `precision` until the scope ends.
  explicit PrecisionScope(Precision precision) : before_(product_precision()) {
    set_product_precision(precision);
  }
  /// Chooses the format before the scope again.
  ~PrecisionScope() { set_product_precision(before_); }
  PrecisionScope(const PrecisionScope&) = delete;             ///< one scope, one choice
  PrecisionScope& operator=(const PrecisionScope&) = delete;  ///< one scope, one choice

 private:
  Precision before_;
};

/// The kernels oneDNN runs bf16 products on here ("avx512_core_amx", "avx512_core_bf16", ...):
/// what the CPU offers beyond AVX512-BF16, such as Intel's AMX tile unit, changes the speed only.
std::string bf16_kernels();

}  // namespace tfm
