/// \file positional_encoding.hpp
/// \brief Chapter 03: the sinusoidal positional encoding of the paper, added to the embeddings.
#pragma once

#include <cstddef>

#include "tfm/core/tensor.hpp"

namespace tfm {

/// The fixed (not trained) table of section 3.5 of the paper, as reference 000 builds it:
///
///     pe[pos, 2i]     = sin(pos * div_i)
///     pe[pos, 2i + 1] = cos(pos * div_i),   div_i = exp(2i * -(ln 10000 / d_model))
///
/// i.e. `sin(pos / 10000^(2i / d_model))`. Computed once in double precision, stored in float.
///
/// An odd d_model is allowed: every column follows its own formula, so the last column is a
/// sine without a cosine partner. (Reference 000's PyTorch code fails there: its cosine half
/// `pe[:, 1::2]` has one column fewer than `div_term`.)
///
/// Dropout after the addition (reference 000's `self.dropout(x)`) belongs to the model, not here.
class PositionalEncoding {
 public:
  /// Builds the table `[max_len, d_model]`; both must be at least 1.
  PositionalEncoding(std::size_t max_len, std::size_t d_model);

  /// x `[B, L, d_model]` += table rows offset .. offset + L - 1, for every sequence of the batch.
  ///
  /// `offset` is the position of x's first token. A full sequence starts at 0; an incremental
  /// decoder that feeds one new token at step t passes `offset = t`, so the token gets the
  /// encoding of its true position (reference 002 gave every new token position 0).
  /// Throws ShapeError if x's last axis is not d_model or offset + L exceeds max_len.
  void add_to(Tensor3& x, std::size_t offset = 0) const;
  /// The backward of add_to: d(x + pe)/dx is the identity and the table is not trained, so the
  /// gradient passes through unchanged and nothing is learned. Returns `grad_x` itself; it exists
  /// so that the trace shows the step.
  const Tensor3& backward(const Tensor3& grad_x) const;

  /// The whole table, `[max_len, d_model]`.
  const Tensor2& table() const { return table_; }
  /// The table's shape `[max_len, d_model]`: the longest sequence it can encode, and its width.
  ///@{
  std::size_t max_len() const { return table_.shape(0); }
  std::size_t d_model() const { return table_.shape(1); }
  ///@}

 private:
  Tensor2 table_;
};

}  // namespace tfm
