#include "tfm/model/transformer.hpp"

#include <cmath>
#include <string>

#include "tfm/core/trace.hpp"
#include "tfm/engine/heap.hpp"

namespace tfm {

// [make masks]
BatchMasks make_masks(const TokenIds& src, const TokenIds& tgt_in) {
  require(src.shape(0) == tgt_in.shape(0), "make_masks",
          "source " + shape_string(src.shape()) + " and target " + shape_string(tgt_in.shape()) +
              " have different batch sizes");
  return {padding_mask(src, src.shape(1)), decoder_self_mask(tgt_in),
          padding_mask(src, tgt_in.shape(1))};
}
// [make masks]

namespace {
constexpr trace::Component traced("Transformer");

Config validated(const Config& c) {
  c.validate();
  return c;
}

float embedding_init_std(const Config& c) {
  return c.scaled_embedding_init ? 1.0f / std::sqrt(static_cast<float>(c.d_model)) : 1.0f;
}
}  // namespace

Transformer::Transformer(const Config& config, std::uint64_t seed)
    : config_(validated(config)),
      rng_(seed),
      src_embedding(config_.src_vocab_size, config_.d_model, rng_, embedding_init_std(config_)),
      tgt_embedding(config_.shared_embedding
                        ? std::nullopt
                        : std::optional<Embedding>(std::in_place, config_.tgt_vocab_size,
                                                   config_.d_model, rng_,
                                                   embedding_init_std(config_))),
      encoder(config_, src_embedding, rng_),
      decoder(config_, tgt_embedding ? *tgt_embedding : src_embedding, rng_),
      generator(config_.d_model, config_.tgt_vocab_size, config_.linear_bias, rng_) {
  keep_freed_memory_for_reuse();  // every step then reuses the last step's memory
}

// [transformer forward]
Tensor3 Transformer::forward(const TokenIds& src, const TokenIds& tgt_in) {
  trace::Scope scope("Transformer");
  traced(src, "source tokens", "src", "batch, src_len");
  traced(tgt_in, "target tokens (shifted right)", "tgt_in", "batch, tgt_len");
  masks_ = make_masks(src, tgt_in);
  traced(masks_.source, "source padding mask", "src_mask", "batch, src_len, src_len");
  traced(masks_.target, "target padding + subsequent mask", "tgt_mask", "batch, tgt_len, tgt_len");
  traced(masks_.cross, "cross-attention mask", "cross_mask", "batch, tgt_len, src_len");
  const Tensor3 memory = encoder.forward(src, &masks_.source);
  const Tensor3 hidden = decoder.forward(tgt_in, memory, &masks_.target, &masks_.cross);
  return traced(generator.forward(hidden), "project to the vocabulary", "logits",
                "batch, tgt_len, tgt_vocab");
}
// [transformer forward]

// [transformer backward]
void Transformer::backward(const Tensor3& grad_logits) {
  trace::Scope scope("Transformer backward");
  const Tensor3 grad_hidden = traced(generator.backward(grad_logits), "backward generator (W, b)",
                                     "grad_hidden", "batch, tgt_len, d_model");
  const Tensor3 grad_memory = decoder.backward(grad_hidden);
  encoder.backward(grad_memory);
}
// [transformer backward]

void Transformer::set_training(bool on) {
  for_each_dropout([on](Dropout& d) { d.set_training(on); });
}

void Transformer::for_each_dropout(const std::function<void(Dropout&)>& visit) {
  encoder.for_each_dropout(visit);
  decoder.for_each_dropout(visit);
}

void Transformer::collect_parameters(ParameterList& list) {
  if (tgt_embedding) {
    list.add_module("src_embedding", src_embedding);
    list.add_module("tgt_embedding", *tgt_embedding);
  } else {
    list.add_module("embedding", src_embedding);
  }
  list.add_module("encoder", encoder);
  list.add_module("decoder", decoder);
  list.add_module("generator", generator);
}

}  // namespace tfm
