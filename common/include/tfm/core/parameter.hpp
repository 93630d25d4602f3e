/// \file parameter.hpp
/// \brief Chapter 03: trainable tensors, their gradients, and the one registry of them by name.
///
/// Every layer keeps its weights as `Param<N>` members and lists them, under the names a
/// PyTorch `state_dict` would use (`w_q.weight`, `encoder.layers.0.norm1.bias`, ...), into a
/// `ParameterList`. The optimizer, the checkpoints, the parameter counts and the PyTorch
/// parity tests all read that one list.
#pragma once

#include <cstddef>
#include <string>
#include <vector>
#include <xtensor/xtensor.hpp>

namespace tfm {

/// A trainable tensor of rank N and the gradient of the loss with respect to it.
/// Backward passes *accumulate* into `grad`; `zero_grad` clears it between steps.
template <std::size_t N>
struct Param {
  xt::xtensor<float, N> value;  ///< what forward uses, and what the optimizer updates
  xt::xtensor<float, N>
      grad;  ///< d loss / d value, same shape; sums every backward since zero_grad

  /// A parameter of the given shape, zero-filled, with a zero gradient.
  static Param zeros(const typename xt::xtensor<float, N>::shape_type& shape) {
    return {xt::zeros<float>(shape), xt::zeros<float>(shape)};
  }
  /// Is this parameter present? (An absent bias has no entries.)
  bool present() const { return value.size() > 0; }
};

/// One registered parameter: its full name, shape, and flat views of value and gradient.
struct ParameterRef {
  std::string name;                ///< state_dict name, e.g. `encoder.layers.0.norm1.bias`
  std::vector<std::size_t> shape;  ///< e.g. `{d_model}` for that bias
  float* value;                    ///< `size` floats, row-major, owned by the layer's Param
  float* grad;                     ///< `size` floats, the matching gradient entries
  std::size_t size;                ///< number of entries, the product of `shape`
  /// The Param this entry was made from, and a test that its tensors still use `value`, `grad`
  /// and `size`: ParameterList::verify asks it (see there).
  ///@{
  const void* owner = nullptr;
  bool (*still_in_place)(const void* owner, const float* value, const float* grad,
                         std::size_t size) = nullptr;
  ///@}
};

/// The parameters of a model, in registration order.
class ParameterList {
 public:
  /// Registers `param` as `prefix + name`; an absent parameter (a bias turned off) is skipped.
  template <std::size_t N>
  void add(const std::string& name, Param<N>& param) {
    if (!param.present()) return;
    refs_.push_back(
        {prefix_ + name,
         std::vector<std::size_t>(param.value.shape().begin(), param.value.shape().end()),
         param.value.data(), param.grad.data(), param.value.size(), &param,
         [](const void* owner, const float* value, const float* grad, std::size_t size) {
           const Param<N>& p = *static_cast<const Param<N>*>(owner);
           return p.value.data() == value && p.grad.data() == grad && p.value.size() == size &&
                  p.grad.size() == size;
         }});
  }

  /// Registers the parameters of `module` (anything with `collect_parameters(ParameterList&)`)
  /// under `prefix + name + "."`.
  template <class Module>
  void add_module(const std::string& name, Module& module) {
    const std::string saved = prefix_;
    prefix_ += name + ".";
    module.collect_parameters(*this);
    prefix_ = saved;
  }

  /// Every registered parameter, in registration order (the order of a PyTorch state_dict).
  const std::vector<ParameterRef>& refs() const { return refs_; }
  /// Iteration over refs(), for `for (const ParameterRef& p : list)`.
  ///@{
  auto begin() const { return refs_.begin(); }
  auto end() const { return refs_.end(); }
  ///@}
  /// Number of registered tensors (not of numbers: that is count()).
  std::size_t size() const { return refs_.size(); }
  /// The parameter called `name`; throws std::out_of_range naming it if there is none.
  const ParameterRef& at(const std::string& name) const;
  /// Total number of trainable numbers.
  std::size_t count() const;
  /// Sets every gradient to zero (after verify()).
  void zero_grad() const;
  /// Throws std::logic_error naming the parameter, and `user` (who would have read it), if a
  /// parameter's value or gradient no longer lives where it was registered. An xtensor
  /// assignment such as `p.grad = p.grad + g`, `p.grad += g` or a resize gives the tensor a new
  /// buffer and frees the old one, which the list still points to; write into the tensor
  /// instead: `xt::noalias(p.grad) += g`. Compares pointers only: costs nothing measurable.
  void verify(const std::string& user) const;

 private:
  std::vector<ParameterRef> refs_;
  std::string prefix_;
};

/// The parameters of `module`, named as its `collect_parameters` names them.
template <class Module>
ParameterList parameters_of(Module& module) {
  ParameterList list;
  module.collect_parameters(list);
  return list;
}

}  // namespace tfm
