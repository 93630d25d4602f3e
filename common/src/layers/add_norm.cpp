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
AddNorm::Grads AddNorm::backward(const Tensor3& d_y) {
  Tensor3 d_sum = norm.backward(d_y);
  // The sum passes its gradient unchanged to the residual and through dropout to the sub-layer.
  traced(d_sum, "backward x + ...: to the residual, unchanged", "d_residual",
         "batch, len, d_model");
  Tensor3 d_sublayer = traced(dropout_.backward(d_sum), "backward dropout: to the sub-layer",
                              "d_sublayer", "batch, len, d_model");
  return {std::move(d_sum), std::move(d_sublayer)};
}
// [add norm backward]

}  // namespace tfm
