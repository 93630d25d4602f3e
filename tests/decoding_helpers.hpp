// Small models and inputs shared by the tests of greedy decoding and beam search (chapter 10).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "tfm/core/random.hpp"
#include "tfm/core/tensor.hpp"
#include "tfm/data/vocabulary.hpp"
#include "tfm/decode/decoding.hpp"
#include "tfm/model/config.hpp"

namespace tfm::testing {

/// Separate vocabularies of different sizes (11 source, 13 target ids), so that mixing up source
/// and target ids would show; dropout is on, so decoding must switch it off.
inline Config small_decoding_config() {
  Config c;
  c.src_vocab_size = 11;
  c.tgt_vocab_size = 13;
  c.d_model = 16;
  c.n_heads = 4;
  c.n_encoder_layers = 2;
  c.n_decoder_layers = 2;
  c.d_ff = 32;
  c.dropout = 0.1f;
  c.max_len = 32;
  c.src_len = 8;
  c.tgt_len = 10;
  return c;
}

/// `[batch, len]` ordinary source symbols; row b ends in b % 3 pads (row 0 is never padded).
inline TokenIds random_source(std::size_t batch, std::size_t len, std::size_t vocab, Rng& rng) {
  TokenIds src = TokenIds::from_shape({batch, len});
  for (std::size_t b = 0; b < batch; ++b)
    for (std::size_t j = 0; j < len; ++j)
      src(b, j) =
          j + b % 3 >= len
              ? kPadId
              : static_cast<std::int32_t>(kFirstSymbolId + rng.below(vocab - kFirstSymbolId));
  return src;
}

/// `[batch, steps]` with nothing forced yet: every entry kFreeToken.
inline TokenIds nothing_forced(std::size_t batch, std::size_t steps) {
  TokenIds forced = TokenIds::from_shape({batch, steps});
  forced.fill(kFreeToken);
  return forced;
}

/// `[batch, steps]`: about a third of the entries forced to an ordinary target id, the rest free.
inline TokenIds random_forcing(std::size_t batch, std::size_t steps, std::size_t vocab, Rng& rng) {
  TokenIds forced = TokenIds::from_shape({batch, steps});
  for (std::int32_t& id : forced)
    id = rng.below(3) == 0
             ? static_cast<std::int32_t>(kFirstSymbolId + rng.below(vocab - kFirstSymbolId))
             : kFreeToken;
  return forced;
}

/// Same shape and same ids. (Catch cannot decompose `a == b` on xtensor operands.)
inline bool same_ids(const TokenIds& a, const TokenIds& b) {
  return a.shape() == b.shape() && std::equal(a.begin(), a.end(), b.begin());
}

}  // namespace tfm::testing
