// Loads the .npy fixtures that tests/fixtures/make_fixtures.py writes with PyTorch.
#pragma once

#include <algorithm>
#include <fstream>
#include <stdexcept>
#include <string>

#include <xtensor/xnpy.hpp>

#include "tfm/tensor.hpp"

namespace tfm::testing {

/// Path of a fixture file under tests/fixtures/.
inline std::string fixture_path(const std::string& name) {
  return std::string(TFM_FIXTURES_DIR) + "/" + name;
}

/// Loads `tests/fixtures/<name>.npy` as a float tensor of rank N; throws naming the file if it is
/// missing or has another rank.
template <std::size_t N>
xt::xtensor<float, N> load_fixture(const std::string& name) {
  const std::string path = fixture_path(name + ".npy");
  if (!std::ifstream(path)) throw std::runtime_error("missing fixture " + path);
  xt::xarray<float> a = xt::load_npy<float>(path);
  if (a.dimension() != N)
    throw std::runtime_error("fixture " + path + " has rank " + std::to_string(a.dimension()) +
                             ", expected " + std::to_string(N));
  // Copy the shape explicitly: converting the xarray directly makes GCC 12 warn
  // (-Wmaybe-uninitialized, a false positive inside xtl) in some translation units.
  typename xt::xtensor<float, N>::shape_type shape{};
  std::copy(a.shape().begin(), a.shape().end(), shape.begin());
  xt::xtensor<float, N> out = xt::xtensor<float, N>::from_shape(shape);
  std::copy(a.begin(), a.end(), out.begin());
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
