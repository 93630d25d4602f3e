/// \file tensor.hpp
/// \brief Chapter 02: tensor aliases, shape printing and shape checks used by every chapter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>
#include <xtensor/xtensor.hpp>

namespace tfm {

/// A vector, e.g. a bias `[d_model]`.
using Tensor1 = xt::xtensor<float, 1>;
/// A matrix, e.g. a weight `[out_features, in_features]`.
using Tensor2 = xt::xtensor<float, 2>;
/// A batch of sequences of vectors, `[batch, len, d_model]`.
using Tensor3 = xt::xtensor<float, 3>;
/// A batch of per-head tensors, `[batch, heads, len, d_k]`.
using Tensor4 = xt::xtensor<float, 4>;
/// One byte per entry of a Tensor3: which entries a ReLU or a dropout let through (a quarter of
/// the memory of a float mask), or which query may attend to which key (tfm::Mask).
using ByteTensor3 = xt::xtensor<std::uint8_t, 3>;
/// Token ids of a batch of sequences, `[batch, len]`.
using TokenIds = xt::xtensor<std::int32_t, 2>;

/// Thrown when a tensor's shape does not fit the operation; the message names both.
class ShapeError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Formats a shape as `[2, 5, 512]`.
template <class Shape>
std::string shape_string(const Shape& shape) {
  std::string out = "[";
  bool first = true;
  for (auto extent : shape) {
    if (!first) out += ", ";
    out += std::to_string(extent);
    first = false;
  }
  return out + "]";
}

/// Stands for "any extent" in an expected shape.
inline constexpr std::size_t kAnyExtent = static_cast<std::size_t>(-1);

/// Throws ShapeError unless `tensor` has shape `expected` (kAnyExtent matches anything).
/// `op` names the operation, `name` the operand and `axes` its axis names, so that the
/// message reads e.g. "MultiHeadAttention: key has shape [2, 7, 128], expected
/// [2, *, 256] (batch, len_k, d_model)".
template <class Tensor>
void require_shape(const std::string& op, const std::string& name, const Tensor& tensor,
                   std::initializer_list<std::size_t> expected, const std::string& axes = "") {
  const auto& shape = tensor.shape();
  bool ok = shape.size() == expected.size();
  std::string want = "[";
  std::size_t i = 0;
  for (std::size_t extent : expected) {
    if (i > 0) want += ", ";
    want += extent == kAnyExtent ? "*" : std::to_string(extent);
    if (ok && extent != kAnyExtent && shape[i] != extent) ok = false;
    ++i;
  }
  want += "]";
  if (!ok) {
    throw ShapeError(op + ": " + name + " has shape " + shape_string(shape) + ", expected " + want +
                     (axes.empty() ? "" : " " + axes));
  }
}

/// Throws ShapeError with `message`, prefixed by the operation's name, unless `condition`.
inline void require(bool condition, const std::string& op, const std::string& message) {
  if (!condition) throw ShapeError(op + ": " + message);
}

/// `sum += term` for two tensors of one shape, on every thread: backward adds up the gradients
/// of a tensor that fed two places (a residual and its sub-layer, the keys and the values).
void add_into(Tensor3& sum, const Tensor3& term);

/// A copy of x, made on every thread (xtensor's copy constructor runs on one).
Tensor3 copy_of(const Tensor3& x);

/// `x * factor`, in x's memory, on every thread (xtensor's `x *= factor` runs on one).
Tensor4 scaled(Tensor4 x, float factor);

}  // namespace tfm
