/// \file mask.hpp
/// \brief Chapter 04: which key positions each query position may attend to.
///
/// Convention (reference 000's): a mask entry of 1 means "may attend", 0 means "blocked";
/// attention fills the scores of blocked pairs with -1e9 before the softmax. Reference 001
/// uses the opposite convention (true = blocked); chapter 04's page compares the two.
#pragma once

#include <cstdint>
#include <xtensor/xtensor.hpp>

#include "tfm/core/tensor.hpp"

namespace tfm {

/// `[batch, len_q, len_k]`; 1 = query i may attend to key j, 0 = blocked. Shared by all heads.
using Mask = ByteTensor3;

/// The id every vocabulary reserves for padding.
inline constexpr std::int32_t kPadId = 0;

/// Padding mask: query i may attend to key j unless `keys[b, j]` is padding.
/// keys `[batch, len_k]` -> `[batch, len_q, len_k]`. Encoder self-attention: keys = source,
/// len_q = src_len. Cross-attention: keys = source (the encoder's output), len_q = tgt_len.
Mask padding_mask(const TokenIds& keys, std::size_t len_q, std::int32_t pad_id = kPadId);

/// Subsequent (causal) mask: position i may attend to positions j <= i only.
/// -> `[batch, len, len]`, lower-triangular ones.
Mask subsequent_mask(std::size_t batch, std::size_t len);

/// Both masks must allow a pair: elementwise AND of two `[batch, len_q, len_k]` masks.
Mask combine_masks(const Mask& a, const Mask& b);

/// The decoder's self-attention mask: padding of the target AND subsequent.
/// target `[batch, len]` -> `[batch, len, len]`.
Mask decoder_self_mask(const TokenIds& target, std::int32_t pad_id = kPadId);

}  // namespace tfm
