/// \file embedding.hpp
/// \brief Chapter 03: token ids -> vectors, `nn.Embedding` scaled by √d_model as in the paper.
#pragma once

#include <cstddef>

#include "tfm/core/parameter.hpp"
#include "tfm/core/random.hpp"
#include "tfm/core/tensor.hpp"

namespace tfm {

/// Reference 000's `Embeddings`: `nn.Embedding(vocab_size, d_model)(ids) * sqrt(d_model)`.
/// Row `weight[id]` is the learned vector of token `id`.
class Embedding {
 public:
  /// Every entry drawn from N(0, init_std²): `nn.Embedding`'s default is 1; the paper's
  /// tensor2tensor code uses d_model^-1/2, so that the scaled vectors have unit size (chapter 11).
  Embedding(std::size_t vocab_size, std::size_t d_model, Rng& rng, float init_std = 1.0f);

  /// ids `[B, L]` -> x `[B, L, d_model]`, x[b, l] = weight[ids[b, l]] · √d_model. Keeps ids for
  /// backward. Throws std::out_of_range naming the id and its position if an id is not in
  /// [0, vocab_size).
  Tensor3 forward(const TokenIds& ids);

  /// grad_y `[B, L, d_model]` for the ids of the last forward:
  /// weight.grad[ids[b, l]] += grad_y[b, l] · √d_model.
  /// There is no input gradient (token ids are not differentiable).
  void backward(const Tensor3& grad_y);
  /// The same for explicitly given ids. A table shared by source and target is used twice per
  /// step; it gets both gradients by one call per input, each with that input's ids.
  void backward(const TokenIds& ids, const Tensor3& grad_y);

  /// Registers `weight`.
  void collect_parameters(ParameterList& list);

  /// The table's shape `[vocab_size, d_model]`: ids it accepts, and the width of a vector.
  ///@{
  std::size_t vocab_size() const { return vocab_; }
  std::size_t d_model() const { return d_model_; }
  ///@}
  /// √d_model, the factor forward multiplies by.
  float scale() const { return scale_; }

  Param<2> weight;  ///< `[vocab_size, d_model]`

 private:
  void check_ids(const TokenIds& ids) const;

  std::size_t vocab_, d_model_;
  float scale_;
  TokenIds ids_;  // forward's ids, for backward
};

}  // namespace tfm
