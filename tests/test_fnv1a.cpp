// FNV-1a: FNV's published values, and the same hash whether the bytes come at once or in pieces
// (weights_fingerprint feeds one parameter at a time).
#include <catch2/catch.hpp>
#include <string>

#include "tfm/engine/fnv1a.hpp"

TEST_CASE("fnv1a is FNV-1a 64", "[fnv1a]") {
  CHECK(tfm::fnv1a("") == 0xcbf29ce484222325ull);   // the offset basis
  CHECK(tfm::fnv1a("a") == 0xaf63dc4c8601ec8cull);  // FNV's published test vector
  CHECK(tfm::fnv1a("John.3.16") == 17273478947642529088ull);
}

TEST_CASE("Fnv1a hashes bytes given in pieces as if given at once", "[fnv1a]") {
  const std::string text = "in the beginning";
  tfm::Fnv1a pieces;
  pieces.add(text.data(), 3);
  pieces.add(text.data() + 3, text.size() - 3);
  CHECK(pieces.value() == tfm::fnv1a(text));
  tfm::Fnv1a other;
  other.add(text.data(), text.size() - 1);
  CHECK(other.value() != tfm::fnv1a(text));
}
