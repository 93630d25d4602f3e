// The heap keeps freed tensors' memory for the next step (engine/heap.hpp).
#include <catch2/catch.hpp>
#include <cstdlib>

#include "tfm/engine/heap.hpp"

// AddressSanitizer brings its own allocator, which glibc's thresholds do not steer.
#if defined(__SANITIZE_ADDRESS__)  // g++
#define TFM_ASAN
#elif defined(__has_feature)  // clang++
#if __has_feature(address_sanitizer)
#define TFM_ASAN
#endif
#endif
#if defined(__GLIBC__) && !defined(TFM_ASAN)
#define TFM_GLIBC_HEAP
#include <malloc.h>
#endif

TEST_CASE("a freed block of 31 MiB stays in the heap for the next step", "[heap]") {
#ifdef TFM_GLIBC_HEAP
  tfm::keep_freed_memory_for_reuse();
  // glibc's default gives a block this large a mapping of its own and unmaps it when it is freed:
  // the next step would fault in fresh pages. (Each ctest case runs in a process of its own, so no
  // earlier free has raised glibc's own threshold.)
  const std::size_t bytes = std::size_t{31} << 20;
  const struct mallinfo2 before = mallinfo2();
  void* volatile block = std::malloc(bytes);  // volatile: the compiler may not drop the pair
  REQUIRE(block != nullptr);
  CHECK(mallinfo2().hblkhd == before.hblkhd);  // no mapping of its own: it is heap memory
  std::free(block);
  CHECK(mallinfo2().arena >= before.arena + bytes);  // and freeing it did not shrink the heap
#else
  WARN("not glibc's allocator (another C library, or AddressSanitizer's): nothing to check");
#endif
}
