#include "tfm/model/encoder.hpp"

#include <string>
#include <utility>

#include "tfm/core/no_grad.hpp"
#include "tfm/core/trace.hpp"

namespace tfm {

namespace {
constexpr trace::Component traced("Encoder");
}  // namespace

Encoder::Encoder(const Config& c, Embedding& embedding, Rng& rng)
    : embedding_(&embedding),
      positions_(c.max_len, c.d_model),
      dropout_(c.dropout, rng.next_u64()) {
  layers.reserve(c.n_encoder_layers);
  for (std::size_t i = 0; i < c.n_encoder_layers; ++i) layers.emplace_back(c, rng);
}

// [encoder forward]
Tensor3 Encoder::forward(const TokenIds& src, const Mask* src_mask) {
  trace::Scope scope("Encoder");
  if (grad_enabled()) src_ = src;  // for the embedding's gradient
  Tensor3 x = embedding_->forward(src);
  positions_.add_to(x);
  x = dropout_.forward(std::move(x));
  traced(x, "dropout(embedding + positions)", "x", "batch, src_len, d_model");
  for (std::size_t i = 0; i < layers.size(); ++i) {
    trace::Scope layer_scope("encoder layer " + std::to_string(i));
    x = layers[i].forward(x, src_mask);
  }
  return x;
}
// [encoder forward]

// [encoder backward]
void Encoder::backward(const Tensor3& grad_memory) {
  trace::Scope scope("Encoder backward");
  Tensor3 grad_x = grad_memory;
  for (std::size_t i = layers.size(); i-- > 0;) {
    trace::Scope layer_scope("encoder layer " + std::to_string(i) + " backward");
    grad_x = layers[i].backward(grad_x);
  }
  grad_x = traced(dropout_.backward(std::move(grad_x)), "backward dropout", "grad_x",
                  "batch, src_len, d_model");
  // Adding the positional table is the identity for the gradient. The embedding table may be
  // shared with the other stack, so it is told which ids this gradient is for.
  embedding_->backward(src_, positions_.backward(grad_x));
}
// [encoder backward]

void Encoder::set_training(bool on) {
  for_each_dropout([on](Dropout& d) { d.set_training(on); });
}

void Encoder::for_each_dropout(const std::function<void(Dropout&)>& visit) {
  visit(dropout_);
  for (EncoderLayer& layer : layers) layer.for_each_dropout(visit);
}

void Encoder::collect_parameters(ParameterList& list) {
  for (std::size_t i = 0; i < layers.size(); ++i)
    list.add_module("layers." + std::to_string(i), layers[i]);
}

}  // namespace tfm
