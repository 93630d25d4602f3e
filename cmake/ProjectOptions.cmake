# One INTERFACE target carries the flags every target must agree on
# (warnings, CPU tuning, sanitizers), so that nothing is set twice.
add_library(tfm_options INTERFACE)
add_library(transformer::options ALIAS tfm_options)

target_compile_options(tfm_options INTERFACE -Wall -Wextra -Wpedantic
  # xstorage.hpp trips a false -Warray-bounds through xt::argmax at -O2 (xtensor 0.24.3).
  -Wno-array-bounds
  # Nothing reads errno after a maths call. Without this g++ must call the library's sqrtf when
  # an argument is negative, and so cannot vectorise a loop that calls std::sqrt (Adam's step).
  -fno-math-errno)

if(TFM_NATIVE AND NOT TFM_SANITIZE AND NOT TFM_BUILD_FUZZERS)
  target_compile_options(tfm_options INTERFACE -march=native)
endif()

if(TFM_SANITIZE)
  target_compile_options(tfm_options INTERFACE
    -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  target_link_options(tfm_options INTERFACE -fsanitize=address,undefined)
endif()

# The fuzz build (fuzz/fuzz_each): libFuzzer needs every function instrumented for coverage, and the
# sanitizers turn a silent out-of-bounds read or an undefined operation into a crash it reports.
if(TFM_BUILD_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "TFM_BUILD_FUZZERS needs Clang's libFuzzer: configure with "
                        "-DCMAKE_CXX_COMPILER=clang++ (fuzz/fuzz_each does), not ${CMAKE_CXX_COMPILER_ID}")
  endif()
  # (-Wno-pass-failed: under the sanitizers Clang cannot vectorise the `omp simd` loops and
  # says so once per loop; that costs the fuzz build speed, not correctness.)
  target_compile_options(tfm_options INTERFACE -fsanitize=fuzzer-no-link,address,undefined
    -fno-sanitize-recover=undefined -fno-omit-frame-pointer -Wno-pass-failed)
  target_link_options(tfm_options INTERFACE -fsanitize=address,undefined)
endif()
