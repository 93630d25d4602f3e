/// \file tensor.hpp
/// \brief The exercises' tensor: a shape and a row-major vector, indexed as `x(b, i, j)`.
///
/// Deliberately light (no xtensor): a learner's file that includes only this header compiles
/// in a second, so `./tutorial exercise NAME` rebuilds only that file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

namespace ex {

/// A tensor of any rank: `Array<float> x({2, 3});` is a `[2, 3]` matrix of zeros; `x(1, 2)` is
/// its last entry. An index out of range throws std::out_of_range naming the axis and the shape.
template <class T>
class Array {
 public:
  /// The empty tensor, shape `[]`: what an unwritten exercise returns.
  Array() = default;
  /// Zeros of the given shape, e.g. `Tensor({batch, len, d_model})`.
  explicit Array(std::vector<std::size_t> shape) : shape_(std::move(shape)) {
    std::size_t n = 1;
    for (std::size_t extent : shape_) n *= extent;
    data_.assign(n, T(0));
  }
  /// The extents, e.g. `{2, 5, 512}`.
  const std::vector<std::size_t>& shape() const { return shape_; }
  /// The extent of one axis: `x.dim(0)` is the batch size of a `[B, L, d]` tensor.
  std::size_t dim(std::size_t axis) const {
    if (axis >= shape_.size()) fail("axis " + std::to_string(axis) + " does not exist");
    return shape_[axis];
  }
  /// The number of axes.
  std::size_t rank() const { return shape_.size(); }
  /// The number of entries.
  std::size_t size() const { return data_.size(); }
  /// The entries, row-major (the last index moves fastest).
  ///@{
  std::vector<T>& flat() { return data_; }
  const std::vector<T>& flat() const { return data_; }
  ///@}
  /// The entry at one index per axis.
  ///@{
  template <class... I>
  T& operator()(I... index) {
    return data_[offset({static_cast<std::size_t>(index)...})];
  }
  template <class... I>
  const T& operator()(I... index) const {
    return data_[offset({static_cast<std::size_t>(index)...})];
  }
  ///@}

 private:
  std::size_t offset(std::initializer_list<std::size_t> index) const {
    if (index.size() != shape_.size()) {
      fail(std::to_string(index.size()) + " indices given, the tensor has " +
           std::to_string(shape_.size()) + " axes");
    }
    std::size_t at = 0, axis = 0;
    for (std::size_t i : index) {
      if (i >= shape_[axis]) {
        fail("index " + std::to_string(i) + " is out of range on axis " + std::to_string(axis));
      }
      at = at * shape_[axis] + i;
      ++axis;
    }
    return at;
  }
  [[noreturn]] void fail(const std::string& what) const {
    std::string shape = "[";
    for (std::size_t a = 0; a < shape_.size(); ++a)
      shape += (a ? ", " : "") + std::to_string(shape_[a]);
    throw std::out_of_range(what + " (shape " + shape + "])");
  }

  std::vector<std::size_t> shape_;
  std::vector<T> data_;
};

/// Floats: activations, weights, gradients.
using Tensor = Array<float>;
/// Token ids, `[batch, len]`.
using Ids = Array<std::int32_t>;
/// A mask, `[batch, len_q, len_k]`: 1 = query i may attend to key j, 0 = blocked.
using Mask = Array<std::uint8_t>;

}  // namespace ex
