/// \file random.hpp
/// \brief Chapter 03: a seeded random generator that gives the same numbers on every machine.
///
/// `std::normal_distribution` and friends may differ between standard libraries, so the
/// distributions are written out here: xoshiro256** for bits, 24-bit floats for uniforms,
/// Box–Muller for normals.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tfm/core/tensor.hpp"

namespace tfm {

/// xoshiro256** seeded through splitmix64.
class Rng {
 public:
  /// Equal seeds give equal sequences, on every machine; any value, 0 included, is a good seed.
  explicit Rng(std::uint64_t seed = 0);

  /// 64 random bits (inline: dropout draws one number per activation).
  std::uint64_t next_u64() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  /// Uniform in [0, 1), with 24 bits of precision (exact in float).
  float uniform() { return static_cast<float>(next_u64() >> 40) * 0x1.0p-24f; }
  /// Uniform in [low, high).
  float uniform(float low, float high) { return low + (high - low) * uniform(); }
  /// Standard normal, N(0, 1).
  float normal();
  /// Uniform integer in [0, n).
  std::uint64_t below(std::uint64_t n);
  /// Coin flips: keep[i] = 1 if a 16-bit uniform u in [0, 65536) is at least `threshold`, else 0
  /// (so P(1) = 1 - threshold / 65536), for i < n. One draw gives the coins of four entries.
  void coins(std::uint32_t threshold, std::uint8_t* keep, std::size_t n);

  /// Fills a tensor with values uniform in [low, high).
  template <class Tensor>
  void fill_uniform(Tensor& t, float low, float high) {
    for (auto& v : t) v = uniform(low, high);
  }
  /// Fills a tensor with values from N(mean, std²).
  template <class Tensor>
  void fill_normal(Tensor& t, float mean, float std) {
    for (auto& v : t) v = mean + std * normal();
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
  bool has_spare_ = false;
  float spare_ = 0.0f;
};

/// `[batch, len, d]` drawn from N(0, 1): stand-ins for vectors of a layer's width.
Tensor3 random_normal(std::size_t batch, std::size_t len, std::size_t d, Rng& rng);

}  // namespace tfm
