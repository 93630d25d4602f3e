// Exercise, chapter 03: the sinusoidal positional-encoding table.
// Check it with: ./tutorial exercise positional_encoding
//
//   pe[pos, 2i]     = sin(pos / 10000^(2i / d_model))
//   pe[pos, 2i + 1] = cos(pos / 10000^(2i / d_model))
// Column j uses i = j / 2 (integer division); an odd d_model ends with a sine column.
//
// Shapes: -> pe [max_len, d_model].
#include "exercise/tensor.hpp"

namespace ex {

Tensor positional_encoding(std::size_t max_len, std::size_t d_model) {
  return {};
}

}  // namespace ex
