/// \file machine.hpp
/// \brief Engine (not a lesson): the machine the products run on — OpenBLAS's kernels, the threads, and how
/// every thread treats subnormal floats. Set up once, before `main`, by machine.cpp.
///
/// Nothing here changes what the model computes, only how fast the CPU computes it; the layers
/// never call it. Three choices are made at start-up:
/// - **Kernels.** Where Debian's OpenBLAS does not know the CPU it falls back to SSE3-only
///   kernels; the library then names kernels the CPU can run (unless `OPENBLAS_CORETYPE` chooses).
/// - **Threads.** One pool, OpenMP's, runs the layers' loops and the products; OpenBLAS itself
///   runs single-threaded inside it.
/// - **Subnormals flushed to zero.** Every computing thread treats a float below 2^-126 as 0
///   (the CPU's flush-to-zero and denormals-are-zero modes). Attention's backward makes such
///   numbers (a softmax weight near 0 times a small gradient), and an Intel core takes a slow
///   micro-code path for every instruction that meets one; AMD's cores barely notice them.
#pragma once

#include <string>

namespace tfm {

/// The threads the layers' loops and the matrix products run on: OMP_NUM_THREADS if set, else
/// OPENBLAS_NUM_THREADS (what the tests and the tutorial set), else one per core; read once at
/// start-up; 1 without OpenMP. The tests check it to know that the threaded paths really run.
int compute_threads();

/// The name of the OpenBLAS kernels the products run on ("Haswell", "SkylakeX", "Zen", ...). Where
/// OpenBLAS does not know the CPU it falls back to SSE3-only "Prescott" kernels; the library then
/// picks the kernels the CPU can run (unless OPENBLAS_CORETYPE chooses), so a CPU with AVX2 never
/// runs on Prescott's. A test checks it.
std::string blas_kernels();

/// Sets whether subnormal floats are flushed to zero, as inputs and as results (x86's MXCSR flags
/// FTZ and DAZ), on the calling thread and on every thread of OpenMP's pool; threads started later
/// inherit the mode from the thread that starts them. The start-up set-up calls it with `true` on
/// the main thread before any other thread exists. `false` is for measuring what the flush saves
/// (`bench_transformer --keep-subnormals`); nothing else calls it.
void set_subnormals_flushed(bool flushed);

/// Whether the calling thread flushes subnormal floats to zero (both FTZ and DAZ are set).
/// Always false on a CPU other than x86-64, where the library leaves the mode as it is.
bool flushes_subnormals_on_this_thread();

}  // namespace tfm
