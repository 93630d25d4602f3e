#include "tfm/model/decoder.hpp"

#include <string>
#include <utility>

#include "tfm/core/no_grad.hpp"
#include "tfm/core/trace.hpp"

namespace tfm {

namespace {
constexpr trace::Component traced("Decoder");
}  // namespace

Decoder::Decoder(const Config& c, Embedding& embedding, Rng& rng)
    : embedding_(&embedding),
      positions_(c.max_len, c.d_model),
      dropout_(c.dropout, rng.next_u64()) {
  layers.reserve(c.n_decoder_layers);
  for (std::size_t i = 0; i < c.n_decoder_layers; ++i) layers.emplace_back(c, rng);
}

// [decoder forward]
Tensor3 Decoder::forward(const TokenIds& tgt_in, const Tensor3& memory, const Mask* self_mask,
                         const Mask* cross_mask, std::vector<DecoderLayerCache>* cache) {
  trace::Scope scope("Decoder");
  if (grad_enabled()) tgt_in_ = tgt_in;  // for the embedding's gradient
  // Decoding continues after the cached positions (layer 0 keeps one key per token fed): each
  // new token gets the encoding of its own position, not of position 0 (reference 002's bug).
  std::size_t first_position = 0;
  if (cache) {
    if (cache->empty()) cache->resize(layers.size());  // the first step
    require(cache->size() == layers.size(), "Decoder",
            "a cache of " + std::to_string(cache->size()) + " layers, the decoder has " +
                std::to_string(layers.size()));
    if (!layers.empty()) first_position = cache->front().self_attn.length();
  }
  Tensor3 x = embedding_->forward(tgt_in);
  positions_.add_to(x, first_position);
  x = dropout_.forward(std::move(x));
  traced(x, "dropout(embedding + positions)", "x", "batch, tgt_len, d_model");
  for (std::size_t i = 0; i < layers.size(); ++i) {
    trace::Scope layer_scope("decoder layer " + std::to_string(i));
    x = layers[i].forward(x, memory, self_mask, cross_mask, cache ? &(*cache)[i] : nullptr);
  }
  return x;
}
// [decoder forward]

// [decoder backward]
Tensor3 Decoder::backward(const Tensor3& grad_hidden) {
  trace::Scope scope("Decoder backward");
  Tensor3 grad_x = grad_hidden;
  Tensor3 grad_memory;
  for (std::size_t i = layers.size(); i-- > 0;) {
    trace::Scope layer_scope("decoder layer " + std::to_string(i) + " backward");
    DecoderLayer::Grads grad_layer = layers[i].backward(grad_x);
    grad_x = std::move(grad_layer.x);
    // Every layer reads the same memory, so their contributions add up.
    if (grad_memory.size() == 0)
      grad_memory = std::move(grad_layer.memory);
    else
      add_into(grad_memory, grad_layer.memory);
  }
  traced(grad_memory, "encoder output's gradient, summed over the layers", "grad_memory",
         "batch, src_len, d_model");
  grad_x = traced(dropout_.backward(std::move(grad_x)), "backward dropout", "grad_x",
                  "batch, tgt_len, d_model");
  // Adding the positional table is the identity for the gradient. The embedding table may be
  // shared with the other stack, so it is told which ids this gradient is for.
  embedding_->backward(tgt_in_, positions_.backward(grad_x));
  return grad_memory;
}
// [decoder backward]

void Decoder::set_training(bool on) {
  for_each_dropout([on](Dropout& d) { d.set_training(on); });
}

void Decoder::for_each_dropout(const std::function<void(Dropout&)>& visit) {
  visit(dropout_);
  for (DecoderLayer& layer : layers) layer.for_each_dropout(visit);
}

void Decoder::collect_parameters(ParameterList& list) {
  for (std::size_t i = 0; i < layers.size(); ++i)
    list.add_module("layers." + std::to_string(i), layers[i]);
}

}  // namespace tfm
