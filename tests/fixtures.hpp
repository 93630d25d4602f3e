// Test inputs: the .npy fixtures that tests/fixtures/make_fixtures.py writes with PyTorch, and
// seeded random tensors.
#pragma once

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>
#include <xtensor/xadapt.hpp>  // tests compare flat vectors (e.g. Adam's moments) via xt::adapt

#include "tfm/core/random.hpp"
#include "tfm/core/tensor.hpp"
#include "tfm/layers/mask.hpp"
#include "tfm/machinery/npy.hpp"

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

/// A fixture of any rank (parameters are rank 1 or 2), required to have the expected shape.
inline xt::xarray<float> load_as(const std::string& name, const std::vector<std::size_t>& shape) {
  const NpyArray a = load_npy_file(fixture_path(name + ".npy"));
  REQUIRE(a.shape == shape);
  xt::xarray<float> out = xt::xarray<float>::from_shape(a.shape);
  std::copy(a.values.begin(), a.values.end(), out.begin());
  return out;
}

/// The fixtures store masks as float 0/1: `[B, Lq, Lk]` floats -> the same shape of 0/1 bytes.
inline Mask to_mask(const Tensor3& m) {
  Mask mask = Mask::from_shape(m.shape());
  for (std::size_t i = 0; i < m.size(); ++i) mask.data()[i] = m.data()[i] != 0.0f;
  return mask;
}

/// A tensor of rank N (3 unless given) and the given shape with entries from N(0, 1).
template <std::size_t N = 3>
xt::xtensor<float, N> random_normal(std::initializer_list<std::size_t> shape, Rng& rng) {
  xt::xtensor<float, N> t = xt::xtensor<float, N>::from_shape(shape);
  rng.fill_normal(t, 0.0f, 1.0f);
  return t;
}

/// Largest |a - b| / (atol + |b|) over all entries: the relative error the parity tests bound.
template <class A, class B>
double max_relative_error(const A& a, const B& b, double atol = 1e-6) {
  if (a.shape().size() != b.shape().size() ||
      !std::equal(a.shape().begin(), a.shape().end(), b.shape().begin()))
    throw std::runtime_error("max_relative_error: shapes differ " + shape_string(a.shape()) +
                             " vs " + shape_string(b.shape()));
  double worst = 0.0;
  auto q = b.begin();
  for (auto p = a.begin(); p != a.end(); ++p, ++q) {
    const double err = std::abs(double(*p) - double(*q)) / (atol + std::abs(double(*q)));
    if (err > worst) worst = err;
  }
  return worst;
}

/// Same score as max_relative_error, for a flat buffer of ours against a loaded fixture.
inline double relative_error(const float* ours, const xt::xarray<float>& reference,
                             double atol = 1e-6) {
  double worst = 0.0;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    const double b = reference.data()[i];
    worst = std::max(worst, std::abs(double(ours[i]) - b) / (atol + std::abs(b)));
  }
  return worst;
}

}  // namespace tfm::testing
