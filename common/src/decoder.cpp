#include "tfm/decoder.hpp"

#include <string>

#include "tfm/trace.hpp"

namespace tfm {

void DecoderCache::select_rows(const std::vector<std::size_t>& rows) {
  for (DecoderLayerCache& layer : layers) {
    layer.self_attn.select_rows(rows);
    layer.cross_attn.select_rows(rows);
  }
  if (tokens.size() == 0) return;
  TokenIds selected = TokenIds::from_shape({rows.size(), tokens.shape(1)});
  for (std::size_t i = 0; i < rows.size(); ++i) {
    require(rows[i] < tokens.shape(0), "DecoderCache",
            "row " + std::to_string(rows[i]) + " selected from a batch of " +
                std::to_string(tokens.shape(0)));
    for (std::size_t j = 0; j < tokens.shape(1); ++j) selected(i, j) = tokens(rows[i], j);
  }
  tokens = std::move(selected);
}

Decoder::Decoder(const Config& c, Embedding& embedding, Rng& rng)
    : embedding_(&embedding), positions_(c.max_len, c.d_model), dropout_(c.dropout, rng.next_u64()) {
  layers.reserve(c.n_decoder_layers);
  for (std::size_t i = 0; i < c.n_decoder_layers; ++i) layers.emplace_back(c, rng);
}

// [decoder forward]
Tensor3 Decoder::forward(const TokenIds& tgt_in, const Tensor3& memory, const Mask* self_mask,
                         const Mask* cross_mask) {
  trace::Scope scope("Decoder");
  tgt_in_ = tgt_in;
  Tensor3 x = embedding_->forward(tgt_in);
  positions_.add_to(x);
  x = dropout_.forward(x);
  trace::step("Decoder", "dropout(embedding + positions)", "x", x, "batch, tgt_len, d_model");
  for (std::size_t i = 0; i < layers.size(); ++i) {
    trace::Scope layer_scope("decoder layer " + std::to_string(i));
    x = layers[i].forward(x, memory, self_mask, cross_mask);
  }
  return x;
}
// [decoder forward]

// [decoder forward step]
Tensor3 Decoder::forward_step(const TokenIds& last, std::size_t position, const Tensor3& memory,
                              const Mask* cross_mask, DecoderCache& cache) {
  // last [B, 1], memory [B, S, d], cross_mask [B, 1, S] -> hidden [B, 1, d]
  const char* name = "Decoder::forward_step";
  require(!training(), name, "decoding is inference: call set_training(false) first");
  require_shape(name, "last", last, {kAnyExtent, 1}, "(batch, 1)");
  const std::size_t B = last.shape(0);
  require(position == cache.length(), name,
          "position " + std::to_string(position) + " given, but the cache holds " +
              std::to_string(cache.length()) + " positions: step t feeds the token at position t");
  require(cache.length() == 0 || cache.tokens.shape(0) == B, name,
          "last has batch " + std::to_string(B) + ", the cache " +
              shape_string(cache.tokens.shape()));
  if (cache.layers.empty()) cache.layers.resize(layers.size());
  require(cache.layers.size() == layers.size(), name,
          "the cache has " + std::to_string(cache.layers.size()) + " layers, the decoder " +
              std::to_string(layers.size()));

  // Remember the token: the self-attention mask below blocks the <pad> positions, as
  // decoder_self_mask() does for a whole prefix.
  TokenIds tokens = TokenIds::from_shape({B, position + 1});
  for (std::size_t b = 0; b < B; ++b) {
    for (std::size_t j = 0; j < position; ++j) tokens(b, j) = cache.tokens(b, j);
    tokens(b, position) = last(b, 0);
  }
  cache.tokens = std::move(tokens);

  // The new token is at `position`, so it gets that row of the table. Adding row 0 at every
  // step (reference 002's bug) would make every token look like the first one.
  Tensor3 x = embedding_->forward(last);
  positions_.add_to(x, position);
  trace::step("Decoder", "embedding + positions (dropout is off)", "x", x, "batch, 1, d_model");
  // The query sees every position fed so far, except <pad>: [B, 1, position + 1]. No causal
  // part: the future is not in the cache.
  const Mask self_mask = padding_mask(cache.tokens, 1);
  for (std::size_t i = 0; i < layers.size(); ++i) {
    trace::Scope layer_scope("decoder layer " + std::to_string(i) + ", one step");
    x = layers[i].forward_step(x, memory, &self_mask, cross_mask, cache.layers[i]);
  }
  return x;
}
// [decoder forward step]

// [decoder backward]
Tensor3 Decoder::backward(const Tensor3& d_hidden) {
  Tensor3 dx = d_hidden;
  Tensor3 d_memory;
  for (std::size_t i = layers.size(); i-- > 0;) {
    DecoderLayer::Grads g = layers[i].backward(dx);
    dx = std::move(g.x);
    // Every layer reads the same memory, so their contributions add up.
    if (d_memory.size() == 0)
      d_memory = std::move(g.memory);
    else
      d_memory += g.memory;
  }
  // The table may be shared with the other stack, so it is told which ids this gradient is for.
  embedding_->backward(tgt_in_, dropout_.backward(dx));
  return d_memory;
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
