// Loads the .npy fixtures that tests/fixtures/make_fixtures.py writes with PyTorch.
#pragma once

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include <xtensor/xadapt.hpp>  // tests compare flat vectors (e.g. Adam's moments) via xt::adapt

#include "tfm/npy.hpp"
#include "tfm/tensor.hpp"

namespace tfm::testing {

/// Path of a fixture file under tests/fixtures/.
inline std::string fixture_path(const std::string& name) {
  return std::string(TFM_FIXTURES_DIR) + "/" + name;
}

/// Loads `tests/fixtures/<name>.npy` as a float tensor of rank N with tfm::load_npy_file (which
/// notices a truncated file); throws naming the file if it is missing, malformed or of another rank.
template <std::size_t N>
xt::xtensor<float, N> load_fixture(const std::string& name) {
  const std::string path = fixture_path(name + ".npy");
  const NpyArray a = load_npy_file(path);
  if (a.shape.size() != N)
    throw std::runtime_error("fixture " + path + " has rank " + std::to_string(a.shape.size()) +
                             ", expected " + std::to_string(N));
  typename xt::xtensor<float, N>::shape_type shape{};
  std::copy(a.shape.begin(), a.shape.end(), shape.begin());
  xt::xtensor<float, N> out = xt::xtensor<float, N>::from_shape(shape);
  std::copy(a.values.begin(), a.values.end(), out.begin());
  return out;
}

/// Largest |a - b| / (atol + |b|) over all entries: the relative error the parity tests bound.
template <class A, class B>
double max_relative_error(const A& a, const B& b, double atol = 1e-6) {
  if (a.shape().size() != b.shape().size() || !std::equal(a.shape().begin(), a.shape().end(), b.shape().begin()))
    throw std::runtime_error("max_relative_error: shapes differ " + shape_string(a.shape()) + " vs " +
                             shape_string(b.shape()));
  double worst = 0.0;
  auto q = b.begin();
  for (auto p = a.begin(); p != a.end(); ++p, ++q) {
    const double err = std::abs(double(*p) - double(*q)) / (atol + std::abs(double(*q)));
    if (err > worst) worst = err;
  }
  return worst;
}

}  // namespace tfm::testing
