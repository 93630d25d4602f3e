# One INTERFACE target carries the flags every target must agree on
# (warnings, CPU tuning, sanitizers), so that nothing is set twice.
add_library(tfm_options INTERFACE)
add_library(transformer::options ALIAS tfm_options)

target_compile_options(tfm_options INTERFACE -Wall -Wextra -Wpedantic
  # xstorage.hpp trips a false -Warray-bounds through xt::argmax at -O2 (xtensor 0.24.3).
  -Wno-array-bounds)

if(TFM_NATIVE AND NOT TFM_SANITIZE)
  target_compile_options(tfm_options INTERFACE -march=native)
endif()

if(TFM_SANITIZE)
  target_compile_options(tfm_options INTERFACE
    -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  target_link_options(tfm_options INTERFACE -fsanitize=address,undefined)
endif()
