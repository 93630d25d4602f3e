#include "tfm/core/random.hpp"

#include <cmath>

namespace tfm {
namespace {

std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace

Rng::Rng(std::uint64_t seed) {
  for (auto& word : s_) word = splitmix64(seed);
}

float Rng::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  // Box–Muller in double precision; 1 - u keeps the logarithm's argument in (0, 1].
  const double u1 = 1.0 - static_cast<double>(next_u64() >> 11) * 0x1.0p-53;
  const double u2 = static_cast<double>(next_u64() >> 11) * 0x1.0p-53;
  const double radius = std::sqrt(-2.0 * std::log(u1));
  const double angle = 2.0 * M_PI * u2;
  spare_ = static_cast<float>(radius * std::sin(angle));
  has_spare_ = true;
  return static_cast<float>(radius * std::cos(angle));
}

std::uint64_t Rng::below(std::uint64_t n) {
  // Rejection sampling keeps every value equally likely.
  const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  std::uint64_t x;
  do {
    x = next_u64();
  } while (x >= limit);
  return x % n;
}

void Rng::coins(std::uint32_t threshold, std::uint8_t* keep, std::size_t n) {
  // The state is drawn from a local copy: `keep` could point into *this, so every draw from
  // *this would go through memory. Four coins a draw are written out: a loop over the four would
  // cost more than the draw itself.
  Rng local = *this;
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const std::uint64_t bits = local.next_u64();
    keep[i] = (bits & 0xFFFF) >= threshold;
    keep[i + 1] = ((bits >> 16) & 0xFFFF) >= threshold;
    keep[i + 2] = ((bits >> 32) & 0xFFFF) >= threshold;
    keep[i + 3] = (bits >> 48) >= threshold;
  }
  if (i < n) {  // the last one to three coins, from one more draw
    std::uint64_t bits = local.next_u64();
    for (; i < n; ++i, bits >>= 16) keep[i] = (bits & 0xFFFF) >= threshold;
  }
  *this = local;
}

Tensor3 random_normal(std::size_t batch, std::size_t len, std::size_t d, Rng& rng) {
  Tensor3 t = Tensor3::from_shape({batch, len, d});
  rng.fill_normal(t, 0.0f, 1.0f);
  return t;
}

}  // namespace tfm
