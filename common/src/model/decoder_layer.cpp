#include "tfm/model/decoder_layer.hpp"

#include <utility>

#include "tfm/core/profile.hpp"
#include "tfm/core/trace.hpp"

namespace tfm {

DecoderLayer::DecoderLayer(const Config& c, Rng& rng)
    : self_attn(c.d_model, c.n_heads, c.attention_bias, rng),
      norm1(c.d_model, c.dropout, rng.next_u64()),
      cross_attn(c.d_model, c.n_heads, c.attention_bias, rng),
      norm2(c.d_model, c.dropout, rng.next_u64()),
      ffn(c.d_model, c.d_ff, c.linear_bias, c.dropout, rng.next_u64(), rng),
      norm3(c.d_model, c.dropout, rng.next_u64()) {}

// [decoder layer forward]
Tensor3 DecoderLayer::forward(const Tensor3& x, const Tensor3& memory, const Mask* self_mask,
                              const Mask* cross_mask) {
  const profile::Scope timed("DecoderLayer forward (own)");
  Tensor3 attended;
  {
    trace::Scope scope("masked self-attention");
    attended = self_attn.forward(x, x, self_mask);
  }
  Tensor3 h1 = norm1.forward(x, std::move(attended));
  Tensor3 crossed;
  {
    trace::Scope scope("cross-attention (queries: decoder, keys/values: encoder output)");
    crossed = cross_attn.forward(h1, memory, cross_mask);
  }
  Tensor3 h2 = norm2.forward(h1, std::move(crossed));
  Tensor3 transformed;
  {
    trace::Scope scope("feed-forward");
    transformed = ffn.forward(h2);
  }
  return norm3.forward(h2, std::move(transformed));
}
// [decoder layer forward]

// [decoder layer backward]
DecoderLayer::Grads DecoderLayer::backward(const Tensor3& dy) {
  const profile::Scope timed("DecoderLayer backward (own)");
  AddNorm::Grads g3 = norm3.backward(dy);
  Tensor3 dh2 = std::move(g3.residual);
  add_into(dh2, ffn.backward(g3.sublayer_output));

  AddNorm::Grads g2 = norm2.backward(dh2);
  MultiHeadAttention::Grads gc = cross_attn.backward(g2.sublayer_output);
  Tensor3 dh1 = std::move(g2.residual);
  dh1 += gc.query_input;

  AddNorm::Grads g1 = norm1.backward(dh1);
  MultiHeadAttention::Grads gs = self_attn.backward(g1.sublayer_output);
  Tensor3 dx = std::move(g1.residual);
  dx += gs.query_input;
  add_into(dx, gs.memory);
  return {std::move(dx), std::move(gc.memory)};
}
// [decoder layer backward]

void DecoderLayer::set_training(bool on) {
  for_each_dropout([on](Dropout& d) { d.set_training(on); });
}

void DecoderLayer::for_each_dropout(const std::function<void(Dropout&)>& visit) {
  norm1.for_each_dropout(visit);
  norm2.for_each_dropout(visit);
  ffn.for_each_dropout(visit);
  norm3.for_each_dropout(visit);
}

void DecoderLayer::collect_parameters(ParameterList& list) {
  list.add_module("self_attn", self_attn);
  list.add_module("norm1", norm1);
  list.add_module("cross_attn", cross_attn);
  list.add_module("norm2", norm2);
  list.add_module("ffn", ffn);
  list.add_module("norm3", norm3);
}

}  // namespace tfm
