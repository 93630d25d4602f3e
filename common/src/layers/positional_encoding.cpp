#include "tfm/layers/positional_encoding.hpp"

#include <cmath>
#include <string>

#include "tfm/core/trace.hpp"

namespace tfm {

namespace {
constexpr trace::Component traced("PositionalEncoding");
}  // namespace

// [pe table]
PositionalEncoding::PositionalEncoding(std::size_t max_len, std::size_t d_model) {
  // -> table [max_len, d_model]
  require(max_len >= 1 && d_model >= 1, "PositionalEncoding",
          "max_len and d_model must be at least 1, got max_len " + std::to_string(max_len) +
              ", d_model " + std::to_string(d_model));
  table_ = Tensor2::from_shape({max_len, d_model});
  // Double precision: at pos = 4999 the angle pos * div_0 needs more digits than float has
  // (float's spacing there is 5e-4), and the table is computed only once.
  const double log_base = std::log(10000.0);
  for (std::size_t j = 0; j < d_model; ++j) {
    const std::size_t two_i = j - j % 2;  // columns 2i and 2i + 1 share one frequency
    const double div =
        std::exp(static_cast<double>(two_i) * -(log_base / static_cast<double>(d_model)));
    for (std::size_t pos = 0; pos < max_len; ++pos) {
      const double angle = static_cast<double>(pos) * div;
      table_(pos, j) = static_cast<float>(j % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  }
}
// [pe table]

// [pe add]
void PositionalEncoding::add_to(Tensor3& x, std::size_t offset) const {
  // x [B, L, d_model] += table[offset : offset + L]  (broadcast over the batch)
  const std::size_t d = d_model();
  require_shape("PositionalEncoding", "input", x, {kAnyExtent, kAnyExtent, d},
                "(batch, len, d_model)");
  const std::size_t batch = x.shape(0), len = x.shape(1);
  require(offset + len <= max_len(), "PositionalEncoding",
          "a sequence of length " + std::to_string(len) + " at offset " + std::to_string(offset) +
              " needs positions up to " + std::to_string(offset + len - 1) +
              ", but the table has max_len " + std::to_string(max_len()) +
              " rows; build it with a larger max_len");
  const float* rows = table_.data() + offset * d;  // the L rows this input needs, contiguous
  for (std::size_t b = 0; b < batch; ++b) {
    float* seq = x.data() + b * len * d;
    for (std::size_t k = 0; k < len * d; ++k) seq[k] += rows[k];
  }
  traced(x, "add sin/cos table", "x", "batch, len, d_model");
}
// [pe add]

// [pe backward]
const Tensor3& PositionalEncoding::backward(const Tensor3& grad_x) const {
  return traced(grad_x, "backward: no parameters, the gradient passes unchanged", "grad_x",
                "batch, len, d_model");
}
// [pe backward]

}  // namespace tfm
