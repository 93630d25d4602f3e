/// \file key_value_cache.hpp
/// \brief Chapter 11: the keys and values one attention has computed so far, kept between the
/// steps of decoding.
///
/// Decoding feeds one new position per step. Its attention needs the keys and values of every
/// earlier position too; recomputing them costs a whole-prefix pass per step. The cache keeps
/// them instead: MultiHeadAttention::forward, given a cache, projects only the new positions,
/// appends their keys and values, and lets the queries read them all.
#pragma once

#include <cstddef>

#include "tfm/core/tensor.hpp"

namespace tfm {

/// The keys and values of one attention, per head, as ScaledDotProductAttention reads them.
struct KeyValueCache {
  Tensor4 keys;    ///< `[B, H, L, d_k]`: W_K of every memory position seen so far, split into heads
  Tensor4 values;  ///< `[B, H, L, d_v]`: W_V likewise

  /// Number of cached positions, L (0 before the first step).
  std::size_t length() const { return keys.shape(2); }
  /// Nothing cached yet?
  bool empty() const { return keys.size() == 0; }
  /// keys `[B, H, n, d_k]`, values `[B, H, n, d_v]` of n new positions -> appended after the
  /// cached ones: `[B, H, L + n, d_k]` (n = 0 changes nothing). Throws ShapeError if the batch,
  /// heads or widths differ.
  void append(const Tensor4& new_keys, const Tensor4& new_values);
};

}  // namespace tfm
