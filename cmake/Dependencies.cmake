# Every dependency comes from Debian's archive. A missing one stops the configure
# step with the name of the package that provides it.
macro(tfm_require package debian_package)
  find_package(${package} ${ARGN} QUIET)
  if(NOT ${package}_FOUND)
    message(FATAL_ERROR
      "Missing dependency: ${package}.\n"
      "Install it with:  apt-get install ${debian_package}\n"
      "(or run ./tutorial build, which installs everything the project needs).")
  endif()
endmacro()

tfm_require(xtensor libxtensor-dev 0.24)
tfm_require(xtensor-blas libxtensor-blas-dev 0.20)
set(BLA_VENDOR OpenBLAS)
tfm_require(BLAS libopenblas-dev)

find_path(TFM_CBLAS_INCLUDE_DIR cblas.h PATH_SUFFIXES x86_64-linux-gnu aarch64-linux-gnu openblas)
if(NOT TFM_CBLAS_INCLUDE_DIR)
  message(FATAL_ERROR "Missing dependency: <cblas.h>.\nInstall it with:  apt-get install libopenblas-dev")
endif()

if(TFM_BUILD_TESTS)
  tfm_require(Catch2 catch2 2)
endif()
