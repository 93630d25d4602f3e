#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <vector>

#include "tfm/core/random.hpp"

TEST_CASE("Rng: same seed, same numbers, another seed, other numbers", "[random]") {
  tfm::Rng a(42), b(42), c(43);
  for (int i = 0; i < 100; ++i) {
    const auto x = a.next_u64();
    CHECK(x == b.next_u64());
    (void)c;
  }
  tfm::Rng d(42), e(43);
  CHECK(d.next_u64() != e.next_u64());
}

TEST_CASE("Rng: the first values are fixed forever (machine independence)", "[random]") {
  // xoshiro256** seeded by splitmix64(0): any change to the generator changes every experiment.
  tfm::Rng r(0);
  CHECK(r.next_u64() == 0x99EC5F36CB75F2B4ULL);
}

TEST_CASE("Rng: uniform and normal have the right moments", "[random]") {
  tfm::Rng r(7);
  const int n = 200000;
  double su = 0, sn = 0, sn2 = 0;
  float lo = 1, hi = 0;
  for (int i = 0; i < n; ++i) {
    const float u = r.uniform();
    lo = std::min(lo, u);
    hi = std::max(hi, u);
    su += u;
    const double z = r.normal();
    sn += z;
    sn2 += z * z;
  }
  CHECK(lo >= 0.0f);
  CHECK(hi < 1.0f);
  CHECK(su / n == Approx(0.5).margin(0.005));
  CHECK(sn / n == Approx(0.0).margin(0.01));
  CHECK(sn2 / n == Approx(1.0).margin(0.01));
  for (int i = 0; i < 1000; ++i) CHECK(r.below(7) < 7);
}

TEST_CASE("Rng: coins are the 16-bit quarters of the draws, low quarter first", "[random]") {
  // The definition, one coin at a time: coin i is quarter i % 4 of draw i / 4, kept if it is at
  // least the threshold. Lengths that are not a multiple of 4 use part of their last draw.
  const std::uint32_t threshold = 6554;  // p = 0.1
  for (const std::size_t n : {0, 1, 3, 4, 7, 9, 1000}) {
    tfm::Rng fast(5), slow(5);
    std::vector<std::uint8_t> keep(n + 1, 7);  // one byte more than asked for
    fast.coins(threshold, keep.data(), n);
    std::size_t kept = 0;
    std::uint64_t bits = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (i % 4 == 0) bits = slow.next_u64();
      const std::uint64_t quarter = (bits >> (16 * (i % 4))) & 0xFFFF;
      INFO("n = " << n << ", coin " << i);
      REQUIRE(keep[i] == (quarter >= threshold ? 1 : 0));
      kept += keep[i];
    }
    CHECK(keep[n] == 7);                        // nothing written past the end
    CHECK(fast.next_u64() == slow.next_u64());  // and (n + 3) / 4 draws used, no more
    if (n == 1000) CHECK(kept == Approx(900).margin(40));
  }
}
