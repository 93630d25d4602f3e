#include "tfm/core/parameter.hpp"

#include <algorithm>
#include <stdexcept>

namespace tfm {

const ParameterRef& ParameterList::at(const std::string& name) const {
  for (const ParameterRef& ref : refs_)
    if (ref.name == name) return ref;
  throw std::out_of_range("no parameter named '" + name + "'");
}

std::size_t ParameterList::count() const {
  std::size_t total = 0;
  for (const ParameterRef& ref : refs_) total += ref.size;
  return total;
}

void ParameterList::verify(const std::string& user) const {
  for (const ParameterRef& ref : refs_) {
    if (ref.still_in_place == nullptr ||
        ref.still_in_place(ref.owner, ref.value, ref.grad, ref.size))
      continue;
    throw std::logic_error(
        user + ": parameter '" + ref.name +
        "' no longer lives where it was registered: its value "
        "or gradient was reassigned or resized (an xtensor `p.grad += g`, `p.grad = ...` or "
        "resize gives it a new buffer and frees the old one, which the optimizer and the "
        "checkpoints would read). Write into the tensor instead: xt::noalias(p.grad) += g");
  }
}

void ParameterList::zero_grad() const {
  verify("zero_grad");
  for (const ParameterRef& ref : refs_) std::fill(ref.grad, ref.grad + ref.size, 0.0f);
}

}  // namespace tfm
