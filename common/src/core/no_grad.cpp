#include "tfm/core/no_grad.hpp"

namespace tfm {
namespace {
bool& grad_mode() {
  static bool on = true;  // the layers are called from the main thread only
  return on;
}
}  // namespace

bool grad_enabled() {
  return grad_mode();
}

NoGrad::NoGrad() : previous_(grad_mode()) {
  grad_mode() = false;
}

NoGrad::~NoGrad() {
  grad_mode() = previous_;
}

}  // namespace tfm
