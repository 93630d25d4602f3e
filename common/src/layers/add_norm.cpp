#include "tfm/layers/add_norm.hpp"

#include <utility>

#include "tfm/core/trace.hpp"

namespace tfm {

namespace {
constexpr trace::Component traced("AddNorm");
}  // namespace

AddNorm::AddNorm(std::size_t d_model, float dropout, std::uint64_t dropout_seed)
    : norm(d_model), dropout_(dropout, dropout_seed) {}

// [add norm forward]
Tensor3 AddNorm::forward(const Tensor3& residual, Tensor3 sublayer_output) {
  require(residual.shape() == sublayer_output.shape(), "AddNorm",
          "residual " + shape_string(residual.shape()) + " and sub-layer output " +
              shape_string(sublayer_output.shape()) + " differ");
  // The sub-layer's output is taken by value: moved in, dropout and the sum work in its memory.
  Tensor3 sum = dropout_.forward(std::move(sublayer_output));
  add_into(sum, residual);
  traced(sum, "x + dropout(sublayer(x))", "sum", "batch, len, d_model");
  return norm.forward(sum);  // LayerNorm prints its own trace line
}
// [add norm forward]

// [add norm backward]
AddNorm::Grads AddNorm::backward(const Tensor3& grad_y) {
  Tensor3 grad_sum = norm.backward(grad_y);
  // The sum passes its gradient unchanged to the residual and through dropout to the sub-layer.
  traced(grad_sum, "backward x + ...: to the residual, unchanged", "grad_residual",
         "batch, len, d_model");
  Tensor3 grad_sublayer = traced(dropout_.backward(grad_sum), "backward dropout: to the sub-layer",
                                 "grad_sublayer", "batch, len, d_model");
  return {std::move(grad_sum), std::move(grad_sublayer)};
}
// [add norm backward]

}  // namespace tfm
