/// \file heap.hpp
/// \brief Engine (not a lesson): the heap keeps the memory of freed tensors for the next step instead of
/// giving it back to the kernel.
///
/// A training step, and every step of decoding, allocates and frees the same activations,
/// megabytes each. By default glibc returns every freed block above 128 KiB to the kernel (and
/// trims the heap's top above 128 KiB), so the next step faults in fresh zeroed pages again, all of
/// it in the kernel (`clear_page`, page faults in `perf`). In a virtual machine a fault costs more:
/// on a 2-vCPU AMD Zen 5 VM the `vowels` preset took 31,000 faults and 2.9-3.7 s a step at one
/// thread, and 2.3-2.4 s with the limits raised. Then the freed blocks stay in the heap and are
/// reused; the peak memory does not grow.
#pragma once

namespace tfm {

/// Raises glibc's thresholds (once; later calls do nothing; elsewhere than glibc it does
/// nothing). The Transformer's constructor calls it, so every program that builds a model has it.
void keep_freed_memory_for_reuse();

}  // namespace tfm
