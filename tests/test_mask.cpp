#include <catch2/catch.hpp>
#include <string>

#include "tfm/layers/mask.hpp"

using namespace tfm;

namespace {

// Two sentences of 5 and 3 tokens, padded with 0 to length 5.
const TokenIds kBatch = {{5, 7, 3, 9, 2}, {4, 8, 6, 0, 0}};

// A mask as text, one line of 0/1 per query and a blank line between sentences: comparing
// these shows both grids when a check fails.
std::string grid(const Mask& mask) {
  std::string text;
  for (std::size_t b = 0; b < mask.shape(0); ++b) {
    for (std::size_t i = 0; i < mask.shape(1); ++i) {
      for (std::size_t j = 0; j < mask.shape(2); ++j) text += mask(b, i, j) ? '1' : '0';
      text += '\n';
    }
    text += '\n';
  }
  return text;
}

}  // namespace

TEST_CASE("padding_mask blocks the padded keys of each sentence, for every query", "[mask]") {
  const Mask mask = padding_mask(kBatch, 5);
  REQUIRE(mask.shape() == Mask::shape_type{2, 5, 5});
  const Mask expected = {
      {{1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}},
      {{1, 1, 1, 0, 0}, {1, 1, 1, 0, 0}, {1, 1, 1, 0, 0}, {1, 1, 1, 0, 0}, {1, 1, 1, 0, 0}}};
  CHECK(grid(mask) == grid(expected));

  // Cross-attention: queries from a 2-token target, keys from the source -> [batch, 2, 5].
  const Mask cross = padding_mask(kBatch, 2);
  REQUIRE(cross.shape() == Mask::shape_type{2, 2, 5});
  const Mask expected_cross = {{{1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}},
                               {{1, 1, 1, 0, 0}, {1, 1, 1, 0, 0}}};
  CHECK(grid(cross) == grid(expected_cross));

  // Another pad id.
  const Mask other = padding_mask(TokenIds{{9, 2, 9}}, 1, /*pad_id=*/9);
  CHECK(grid(other) == grid(Mask{{{0, 1, 0}}}));
}

TEST_CASE("subsequent_mask lets position i see positions 0..i", "[mask]") {
  const Mask mask = subsequent_mask(2, 4);
  REQUIRE(mask.shape() == Mask::shape_type{2, 4, 4});
  const Mask one = {{{1, 0, 0, 0}, {1, 1, 0, 0}, {1, 1, 1, 0}, {1, 1, 1, 1}}};
  const Mask expected = {{{1, 0, 0, 0}, {1, 1, 0, 0}, {1, 1, 1, 0}, {1, 1, 1, 1}},
                         {{1, 0, 0, 0}, {1, 1, 0, 0}, {1, 1, 1, 0}, {1, 1, 1, 1}}};
  CHECK(grid(mask) == grid(expected));
  CHECK(grid(subsequent_mask(1, 4)) == grid(one));
}

TEST_CASE("combine_masks and decoder_self_mask: padding AND subsequent", "[mask]") {
  const Mask combined = combine_masks(padding_mask(kBatch, 5), subsequent_mask(2, 5));
  const Mask expected = {
      {{1, 0, 0, 0, 0}, {1, 1, 0, 0, 0}, {1, 1, 1, 0, 0}, {1, 1, 1, 1, 0}, {1, 1, 1, 1, 1}},
      {{1, 0, 0, 0, 0}, {1, 1, 0, 0, 0}, {1, 1, 1, 0, 0}, {1, 1, 1, 0, 0}, {1, 1, 1, 0, 0}}};
  CHECK(grid(combined) == grid(expected));
  CHECK(grid(decoder_self_mask(kBatch)) == grid(expected));

  CHECK_THROWS_AS(combine_masks(subsequent_mask(2, 5), subsequent_mask(2, 4)), ShapeError);
  CHECK_THROWS_WITH(combine_masks(subsequent_mask(2, 5), subsequent_mask(2, 4)),
                    "combine_masks: masks differ in shape: [2, 5, 5] vs [2, 4, 4]");
}
