/// \file convert.hpp
/// \brief Between the exercises' light ex::Array and the library's xtensor types, to run the
/// library's own implementation on the same inputs as the learner's.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>
#include <xtensor/xtensor.hpp>

#include "exercise/tensor.hpp"
#include "tfm/machinery/npy.hpp"

namespace ex::check {

/// A copy of an xtensor (any rank, any element type) as an ex::Array.
template <class T, std::size_t N>
Array<T> to_ex(const xt::xtensor<T, N>& x) {
  Array<T> out(std::vector<std::size_t>(x.shape().begin(), x.shape().end()));
  std::copy(x.begin(), x.end(), out.flat().begin());
  return out;
}

/// A copy of an ex::Array as an xtensor of rank N (the caller knows the rank).
template <std::size_t N, class T>
xt::xtensor<T, N> to_xt(const Array<T>& x) {
  std::array<std::size_t, N> shape{};
  for (std::size_t axis = 0; axis < N && axis < x.rank(); ++axis) shape[axis] = x.shape()[axis];
  xt::xtensor<T, N> out(shape);
  std::copy(x.flat().begin(), x.flat().end(), out.begin());
  return out;
}

/// `tests/fixtures/<name>.npy` (written by PyTorch) as an ex::Tensor; throws naming the file.
inline Tensor load_fixture(const std::string& name) {
  const tfm::NpyArray a = tfm::load_npy_file(std::string(TFM_FIXTURES_DIR) + "/" + name + ".npy");
  Tensor out(a.shape);
  std::copy(a.values.begin(), a.values.end(), out.flat().begin());
  return out;
}

}  // namespace ex::check
