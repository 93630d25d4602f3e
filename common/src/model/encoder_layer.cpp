#include "tfm/model/encoder_layer.hpp"

#include <utility>

#include "tfm/core/trace.hpp"

namespace tfm {

namespace {
constexpr trace::Component traced("EncoderLayer");
}  // namespace

EncoderLayer::EncoderLayer(const Config& c, Rng& rng)
    : self_attn(c.d_model, c.n_heads, c.attention_bias, rng),
      norm1(c.d_model, c.dropout, rng.next_u64()),
      ffn(c.d_model, c.d_ff, c.linear_bias, c.dropout, rng.next_u64(), rng),
      norm2(c.d_model, c.dropout, rng.next_u64()) {}

// [encoder layer forward]
Tensor3 EncoderLayer::forward(const Tensor3& x, const Mask* src_mask) {
  Tensor3 attended;
  {
    trace::Scope scope("self-attention");
    attended = self_attn.forward(x, x, src_mask);
  }
  Tensor3 h = norm1.forward(x, std::move(attended));
  Tensor3 transformed;
  {
    trace::Scope scope("feed-forward");
    transformed = ffn.forward(h);
  }
  return norm2.forward(h, std::move(transformed));
}
// [encoder layer forward]

// [encoder layer backward]
Tensor3 EncoderLayer::backward(const Tensor3& grad_y) {
  // Walk the forward in reverse; where a tensor feeds two paths (a residual and a sub-layer),
  // their gradients add.
  auto [grad_h, grad_transformed] = norm2.backward(grad_y);
  {
    trace::Scope scope("feed-forward backward");
    add_into(grad_h, ffn.backward(grad_transformed));
  }
  traced(grad_h, "residual + feed-forward paths add", "grad_h", "batch, len, d_model");
  auto [grad_x, grad_attended] = norm1.backward(grad_h);
  MultiHeadAttention::Grads grad_self;
  {
    trace::Scope scope("self-attention backward");
    grad_self = self_attn.backward(grad_attended);
  }
  add_into(grad_x, grad_self.query_input);  // x was the queries...
  add_into(grad_x, grad_self.memory);       // ...and the keys and values
  traced(grad_x, "residual + query, key, value paths add", "grad_x", "batch, len, d_model");
  return std::move(grad_x);
}
// [encoder layer backward]

void EncoderLayer::set_training(bool on) {
  for_each_dropout([on](Dropout& d) { d.set_training(on); });
}

void EncoderLayer::for_each_dropout(const std::function<void(Dropout&)>& visit) {
  norm1.for_each_dropout(visit);
  ffn.for_each_dropout(visit);
  norm2.for_each_dropout(visit);
}

void EncoderLayer::collect_parameters(ParameterList& list) {
  list.add_module("self_attn", self_attn);
  list.add_module("norm1", norm1);
  list.add_module("ffn", ffn);
  list.add_module("norm2", norm2);
}

}  // namespace tfm
