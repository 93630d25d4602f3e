// Solution of the exercise positional_encoding (chapter 03). Try the exercise first.
#include <cmath>

#include "exercise/tensor.hpp"

namespace ex {

Tensor positional_encoding(std::size_t max_len, std::size_t d_model) {
  Tensor pe({max_len, d_model});
  for (std::size_t pos = 0; pos < max_len; ++pos) {
    for (std::size_t j = 0; j < d_model; ++j) {
      const double two_i = double(j - j % 2);
      const double angle = double(pos) / std::pow(10000.0, two_i / double(d_model));
      pe(pos, j) = float(j % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  }
  return pe;
}

}  // namespace ex
