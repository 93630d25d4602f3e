#include "tfm/model/decoder_layer.hpp"

#include <utility>

#include "tfm/core/trace.hpp"

namespace tfm {

namespace {
constexpr trace::Component traced("DecoderLayer");
}  // namespace

DecoderLayer::DecoderLayer(const Config& c, Rng& rng)
    : self_attn(c.d_model, c.n_heads, c.attention_bias, rng),
      norm1(c.d_model, c.dropout, rng.next_u64()),
      cross_attn(c.d_model, c.n_heads, c.attention_bias, rng),
      norm2(c.d_model, c.dropout, rng.next_u64()),
      ffn(c.d_model, c.d_ff, c.linear_bias, c.dropout, rng.next_u64(), rng),
      norm3(c.d_model, c.dropout, rng.next_u64()) {}

// [decoder layer forward]
Tensor3 DecoderLayer::forward(const Tensor3& x, const Tensor3& memory, const Mask* self_mask,
                              const Mask* cross_mask, DecoderLayerCache* cache) {
  Tensor3 attended;
  {
    trace::Scope scope("masked self-attention");
    // Decoding: x's new positions join the cached ones as keys and values.
    attended = self_attn.forward(x, x, self_mask, cache ? &cache->self_attn : nullptr);
  }
  Tensor3 h1 = norm1.forward(x, std::move(attended));
  Tensor3 crossed;
  {
    trace::Scope scope("cross-attention (queries: decoder, keys/values: encoder output)");
    if (!cache) {
      crossed = cross_attn.forward(h1, memory, cross_mask);
    } else {
      // Decoding: the encoder output does not change, so only the first step projects it; the
      // later ones add no position to its cache.
      const Tensor3 no_positions = Tensor3::from_shape({memory.shape(0), 0, memory.shape(2)});
      const bool first_step = cache->cross_attn.empty();
      crossed = cross_attn.forward(h1, first_step ? memory : no_positions, cross_mask,
                                   &cache->cross_attn);
    }
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
DecoderLayer::Grads DecoderLayer::backward(const Tensor3& grad_y) {
  // Walk the forward in reverse; where a tensor feeds two paths (a residual and a sub-layer),
  // their gradients add.
  auto [grad_h2, grad_transformed] = norm3.backward(grad_y);
  {
    trace::Scope scope("feed-forward backward");
    add_into(grad_h2, ffn.backward(grad_transformed));
  }
  traced(grad_h2, "residual + feed-forward paths add", "grad_h2", "batch, tgt_len, d_model");
  auto [grad_h1, grad_crossed] = norm2.backward(grad_h2);
  MultiHeadAttention::Grads grad_cross;
  {
    trace::Scope scope("cross-attention backward");
    grad_cross = cross_attn.backward(grad_crossed);
  }
  add_into(grad_h1, grad_cross.query_input);  // h1 was the cross-attention's queries
  traced(grad_h1, "residual + cross-attention query paths add", "grad_h1",
         "batch, tgt_len, d_model");
  auto [grad_x, grad_attended] = norm1.backward(grad_h1);
  MultiHeadAttention::Grads grad_self;
  {
    trace::Scope scope("masked self-attention backward");
    grad_self = self_attn.backward(grad_attended);
  }
  add_into(grad_x, grad_self.query_input);  // x was the queries...
  add_into(grad_x, grad_self.memory);       // ...and the keys and values
  traced(grad_x, "residual + query, key, value paths add", "grad_x", "batch, tgt_len, d_model");
  return {std::move(grad_x), std::move(grad_cross.memory)};
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
