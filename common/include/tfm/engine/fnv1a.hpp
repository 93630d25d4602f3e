/// \file fnv1a.hpp
/// \brief Engine (not a lesson): FNV-1a, 64 bits: a hash of bytes that is the same on every machine and in every run
/// (std::hash is not). It splits data by a name (a verse, a word) and fingerprints weights; it is
/// no defence against someone who wants a collision.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tfm {

/// FNV-1a over bytes fed in any number of pieces: `Fnv1a h; h.add(a, n); h.add(b, m); h.value()`
/// is the hash of a's n bytes followed by b's m.
class Fnv1a {
 public:
  /// Feeds `bytes` bytes from `data` into the hash.
  void add(const void* data, std::size_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < bytes; ++i) hash_ = (hash_ ^ p[i]) * kPrime;
  }
  /// The hash of every byte fed so far.
  std::uint64_t value() const { return hash_; }

 private:
  static constexpr std::uint64_t kOffsetBasis = 0xcbf29ce484222325ull, kPrime = 0x100000001b3ull;
  std::uint64_t hash_ = kOffsetBasis;
};

/// The FNV-1a hash of `text`'s bytes.
inline std::uint64_t fnv1a(std::string_view text) {
  Fnv1a h;
  h.add(text.data(), text.size());
  return h.value();
}

}  // namespace tfm
