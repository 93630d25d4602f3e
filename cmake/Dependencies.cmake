# Every dependency comes from Debian's archive, and debian-packages.txt at the root names the
# package of each. A configure step that misses some stops once, naming all of them and the one
# apt-get command that installs them.

# The Debian package that provides what find_package(<cmake_name>) looks for, per debian-packages.txt.
function(tfm_debian_package cmake_name out_var)
  file(STRINGS ${PROJECT_SOURCE_DIR}/debian-packages.txt lines REGEX "^[a-z]")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "[ \t]+" ";" fields "${line}")
    list(GET fields 2 name)
    if(name STREQUAL cmake_name)
      list(GET fields 1 package)
      set(${out_var} ${package} PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "debian-packages.txt names no package for '${cmake_name}'")
endfunction()

set(tfm_missing_packages "")
set(tfm_missing_details "")
# Notes what find_package(<cmake_name> [version]) would need: its Debian package joins the list.
macro(tfm_missing cmake_name)
  tfm_debian_package(${cmake_name} tfm_debian)
  list(APPEND tfm_missing_packages ${tfm_debian})
  string(APPEND tfm_missing_details "  ${cmake_name} ${ARGN} (Debian package ${tfm_debian})\n")
endmacro()
macro(tfm_require package)
  find_package(${package} ${ARGN} QUIET)
  if(NOT ${package}_FOUND)
    tfm_missing(${package} ${ARGN})
  endif()
endmacro()

tfm_require(xtensor 0.24)
tfm_require(xtensor-blas 0.20)
# oneDNN: the bf16 products (engine/bf16_products.cpp). Its CMake files stop the configure step
# when OpenCL is missing (Debian's build has the GPU runtime), so look for OpenCL first.
tfm_require(OpenCL)
if(OpenCL_FOUND)
  tfm_require(dnnl 2.6)
else()
  find_path(TFM_DNNL_HEADER dnnl.hpp)
  if(NOT TFM_DNNL_HEADER)
    tfm_missing(dnnl 2.6)
  endif()
endif()
if(TFM_BUILD_TESTS)
  tfm_require(Catch2 2)
endif()

# OpenBLAS, not any BLAS: the reference BLAS that Debian's base images ship (libblas-dev) owns the
# same <cblas.h> and libblas.so names through the alternatives system, and is 10-30x slower.
set(BLA_VENDOR OpenBLAS)
find_package(BLAS QUIET)
unset(BLA_VENDOR)
# The header of OpenBLAS itself, never the alternatives link /usr/include/<arch>/cblas.h, which may
# point at another BLAS's header.
set(tfm_openblas_include_dirs "")
foreach(flavour IN ITEMS openblas-pthread openblas-openmp openblas-serial)
  list(APPEND tfm_openblas_include_dirs /usr/include/${CMAKE_LIBRARY_ARCHITECTURE}/${flavour})
endforeach()
find_path(TFM_CBLAS_INCLUDE_DIR cblas.h PATHS ${tfm_openblas_include_dirs} /usr/include/openblas NO_DEFAULT_PATH)
if(NOT BLAS_FOUND OR NOT TFM_CBLAS_INCLUDE_DIR)
  tfm_debian_package(BLAS tfm_debian)
  list(APPEND tfm_missing_packages ${tfm_debian})
  # Name the BLAS that is there instead, if any, and the package that owns it.
  find_library(TFM_OTHER_BLAS NAMES blas cblas)
  if(TFM_OTHER_BLAS)
    get_filename_component(other_blas_real ${TFM_OTHER_BLAS} REALPATH)
    set(owner "")
    execute_process(COMMAND dpkg -S ${other_blas_real} OUTPUT_VARIABLE owner ERROR_QUIET
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    string(REGEX REPLACE ":.*" "" owner "${owner}")
    if(owner)
      set(owner ", from the Debian package ${owner}")
    endif()
    string(APPEND tfm_missing_details
      "  OpenBLAS (Debian package ${tfm_debian}). The BLAS found instead is not OpenBLAS:\n"
      "    ${TFM_OTHER_BLAS} -> ${other_blas_real}${owner}.\n"
      "    This project needs OpenBLAS itself (its speed and openblas_set_num_threads); installing\n"
      "    ${tfm_debian} makes it the system's BLAS and leaves the other one in place.\n")
  else()
    string(APPEND tfm_missing_details "  OpenBLAS (Debian package ${tfm_debian}); no BLAS at all was found.\n")
  endif()
endif()

if(tfm_missing_packages)
  list(REMOVE_DUPLICATES tfm_missing_packages)
  string(REPLACE ";" " " tfm_missing_packages "${tfm_missing_packages}")
  message(FATAL_ERROR
    "Missing dependencies:\n${tfm_missing_details}"
    "Install them with:  apt-get install ${tfm_missing_packages}\n"
    "(or run ./tutorial build, which installs everything debian-packages.txt lists).")
endif()
