// The number format of the products, and whether this CPU can run bf16 (precision.hpp).
#include "tfm/engine/precision.hpp"

#include <atomic>
#include <oneapi/dnnl/dnnl.hpp>
#include <stdexcept>
#include <string>

namespace tfm {
namespace {

// Read by every product, set by one call before training: an atomic, so no thread reads a torn
// value, and relaxed, because nothing else is published with it.
std::atomic<Precision> chosen_precision{Precision::kFp32};

}  // namespace

std::string precision_name(Precision precision) {
  return precision == Precision::kBf16 ? "bf16" : "fp32";
}

Precision precision_from_name(const std::string& name) {
  if (name == "fp32") return Precision::kFp32;
  if (name == "bf16") return Precision::kBf16;
  throw std::invalid_argument("'" + name + "' is not a precision: use fp32 or bf16");
}

bool cpu_has_bf16() {
#if defined(__x86_64__)
  // GCC's check also asks the operating system whether it saves the AVX-512 registers.
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512bf16") != 0;
#else
  return false;
#endif
}

std::string bf16_unavailable_reason() {
  if (cpu_has_bf16()) return "";
#if defined(__x86_64__)
  return "this CPU has no bf16 instructions (AVX512-BF16: Intel Cooper Lake or Sapphire Rapids "
         "and later, AMD Zen 4 and later); bf16 is never emulated, use --precision fp32";
#else
  return "bf16 products are written for x86-64's AVX512-BF16 instructions only; use "
         "--precision fp32";
#endif
}

void set_product_precision(Precision precision) {
  if (precision == Precision::kBf16 && !cpu_has_bf16())
    throw std::runtime_error("bf16: " + bf16_unavailable_reason());
  chosen_precision.store(precision, std::memory_order_relaxed);
}

Precision product_precision() {
  return chosen_precision.load(std::memory_order_relaxed);
}

std::string bf16_kernels() {
  switch (dnnl::get_effective_cpu_isa()) {
    case dnnl::cpu_isa::avx512_core_amx:
      return "avx512_core_amx (AMX tiles)";
    case dnnl::cpu_isa::avx512_core_bf16:
      return "avx512_core_bf16 (AVX512-BF16)";
    default:
      return cpu_has_bf16() ? "AVX512-BF16, kernels oneDNN does not name" : "none";
  }
}

}  // namespace tfm
