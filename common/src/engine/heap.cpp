#include "tfm/engine/heap.hpp"

// Any C library header defines __GLIBC__ on glibc; without one the test below is always false and
// the function does nothing.
#include <cstdlib>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace tfm {

void keep_freed_memory_for_reuse() {
#if defined(__GLIBC__)
  static const bool done = [] {
    mallopt(M_MMAP_THRESHOLD,
            32 << 20);                   // blocks up to 32 MiB (glibc's maximum) come from the heap
    mallopt(M_TRIM_THRESHOLD, 1 << 30);  // and freeing them never shrinks it
    return true;
  }();
  (void)done;
#endif
}

}  // namespace tfm
