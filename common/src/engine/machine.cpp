// The machine set-up behind the products: kernels, threads, subnormal floats (machine.hpp).
// Like matmul.cpp, this file includes <cblas.h> and nothing of xtensor-blas.
#include "tfm/engine/machine.hpp"

#include <cblas.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#if defined(__x86_64__)
#include <xmmintrin.h>  // _mm_getcsr, _mm_setcsr
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

// Exported by OpenBLAS built with DYNAMIC_ARCH (Debian's is): its kernel selection, again.
extern "C" void gotoblas_dynamic_init(void);
extern "C" void gotoblas_dynamic_quit(void);

namespace tfm {
namespace {

// Kernels. Debian's OpenBLAS (0.3.21) picks its kernels when it is loaded, from a table of the
// CPU models it knew when it was released. A newer model falls back to "Prescott" (SSE3 only),
// which trained chapter 11 three times slower. OPENBLAS_CORETYPE names the kernels to use instead:
// when the user has not set it and OpenBLAS fell back, name the kernels the CPU's vector units can
// run, and start OpenBLAS's selection again (it reads the variable then).
const char* kernels_for_this_cpu() {
  // Called from a static initialiser, maybe before the one that fills in what
  // __builtin_cpu_supports reads: GCC's manual asks for this call in such code.
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
  return nullptr;  // Prescott's SSE3 kernels are the best this CPU can run anyway
}

void choose_blas_kernels() {
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr) return;  // the user's choice stands
  if (std::string(openblas_get_corename()) != "Prescott") return;
  const char* kernels = kernels_for_this_cpu();
  if (kernels == nullptr) return;
  setenv("OPENBLAS_CORETYPE", kernels, 1);
  gotoblas_dynamic_quit();
  gotoblas_dynamic_init();
}

// Threads. ONE pool of threads, OpenMP's, runs the layers' loops and the products. OpenBLAS has a
// pool of its own; two pools that each keep their threads spinning between jobs fight over the
// cores. So OpenBLAS runs single-threaded, and matmul.cpp cuts a big product into slices for the
// OpenMP threads. OpenBLAS's own threads also started when it was loaded, before this set-up
// could set their floating-point mode: one more reason they never compute.
int configure_threads() {
  openblas_set_num_threads(1);
#ifdef _OPENMP
  // OMP_NUM_THREADS, when set, has already sized the pool; else follow OPENBLAS_NUM_THREADS.
  if (std::getenv("OMP_NUM_THREADS") == nullptr) {
    const char* blas = std::getenv("OPENBLAS_NUM_THREADS");
    const int wanted = blas != nullptr ? std::atoi(blas) : 0;
    if (wanted > 0) omp_set_num_threads(wanted);
  }
  // More threads than cores never helps, and a count far beyond them (OMP_NUM_THREADS=100000)
  // would crash inside OpenMP when the first parallel region starts them.
  const int cores = omp_get_num_procs();
  if (omp_get_max_threads() > cores) {
    std::fprintf(stderr, "note: %d threads asked for, but this machine has %d cores: using %d\n",
                 omp_get_max_threads(), cores, cores);
    omp_set_num_threads(cores);
  }
  return omp_get_max_threads();
#else
  return 1;
#endif
}

#if defined(__x86_64__)
constexpr unsigned kFlushToZero = 0x8000;       // MXCSR.FTZ: a subnormal result becomes 0
constexpr unsigned kDenormalsAreZero = 0x0040;  // MXCSR.DAZ: a subnormal input is read as 0
#endif

void set_flush_on_this_thread(bool flushed) {
#if defined(__x86_64__)
  const unsigned both = kFlushToZero | kDenormalsAreZero;
  _mm_setcsr(flushed ? (_mm_getcsr() | both) : (_mm_getcsr() & ~both));
#else
  (void)flushed;
#endif
}

struct Setup {
  int threads = 1;
};

Setup set_up() {
  choose_blas_kernels();
  Setup setup;
  setup.threads = configure_threads();
  // First on this, the main thread, before it has started any other: every thread OpenMP starts
  // later inherits the mode. Then on each thread of the pool (which this starts now), in case a
  // pool was running already.
  set_subnormals_flushed(true);
  return setup;
}

// Set up once: at start-up by the initialiser below, or by the first caller if a static
// initialiser of another file needs it earlier.
const Setup& machine() {
  static const Setup setup = set_up();
  return setup;
}
const bool kSetUpAtStart = (machine(), true);

}  // namespace

int compute_threads() {
  return machine().threads;
}

std::string blas_kernels() {
  machine();
  return openblas_get_corename();
}

void set_subnormals_flushed(bool flushed) {
  set_flush_on_this_thread(flushed);
#ifdef _OPENMP
#pragma omp parallel
  set_flush_on_this_thread(flushed);
#endif
}

bool flushes_subnormals_on_this_thread() {
#if defined(__x86_64__)
  const unsigned both = kFlushToZero | kDenormalsAreZero;
  return (_mm_getcsr() & both) == both;
#else
  return false;
#endif
}

}  // namespace tfm
