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

void ParameterList::zero_grad() const {
  for (const ParameterRef& ref : refs_) std::fill(ref.grad, ref.grad + ref.size, 0.0f);
}

}  // namespace tfm
