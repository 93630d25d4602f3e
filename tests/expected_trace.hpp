// The shape trace the model's components must print, built from the sizes alone, and a checker
// that compares it line by line (nesting included) with what tfm::trace::Capture recorded.
// Shared by the tests of chapters 08-10: test_add_norm, test_encoder_layer, test_decoder_layer,
// test_stacks and test_transformer.
#pragma once

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstddef>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include "tfm/core/tensor.hpp"
#include "tfm/model/config.hpp"

namespace tfm::testing {

/// One expected line: a step `[Component] what   tensor -> [shape]   (axes)`, or a scope title.
struct TraceLine {
  int depth;           ///< nesting level (the trace indents 2 spaces per level)
  std::string head;    ///< "[Component] what" of a step, or the whole title of a scope
  std::string result;  ///< "tensor -> [shape]" of a step; empty for a scope title
};
using ExpectedTrace = std::vector<TraceLine>;

/// `[2, 5, 16]`
inline std::string dims(std::initializer_list<std::size_t> extents) {
  return shape_string(extents);
}

/// Multi-head attention's forward: query input `[B, Lq, d]`, memory `[B, Lk, d]`, h heads.
inline void mha_forward(ExpectedTrace& t, int depth, std::size_t B, std::size_t Lq, std::size_t Lk,
                        std::size_t d, std::size_t h, bool masked) {
  const std::size_t grad_k = d / h;
  const std::string mha = "[MultiHeadAttention] ", sdpa = "[ScaledDotProductAttention] ";
  t.push_back({depth, mha + "project queries", "Q -> " + dims({B, Lq, d})});
  t.push_back({depth, mha + "project keys", "K -> " + dims({B, Lk, d})});
  t.push_back({depth, mha + "project values", "V -> " + dims({B, Lk, d})});
  t.push_back({depth, mha + "split heads", "Q -> " + dims({B, h, Lq, grad_k})});
  t.push_back({depth, mha + "split heads", "K -> " + dims({B, h, Lk, grad_k})});
  t.push_back({depth, mha + "split heads", "V -> " + dims({B, h, Lk, grad_k})});
  t.push_back({depth, "ScaledDotProductAttention, all heads at once", ""});
  const std::string scores = dims({B, h, Lq, Lk});
  t.push_back({depth + 1, sdpa + "scores", "S = Q K^T -> " + scores});
  t.push_back({depth + 1, sdpa + "scale", "S = S / sqrt(d_k) -> " + scores});
  if (masked) t.push_back({depth + 1, sdpa + "mask", "S[blocked] = -1e9 -> " + scores});
  t.push_back({depth + 1, sdpa + "softmax", "A = softmax(S) -> " + scores});
  t.push_back({depth + 1, sdpa + "weighted sum", "C = A V -> " + dims({B, h, Lq, grad_k})});
  t.push_back({depth, mha + "concat heads", "concat -> " + dims({B, Lq, d})});
  t.push_back({depth, mha + "output projection", "output -> " + dims({B, Lq, d})});
}

/// Add & Norm's forward on `[B, L, d]`: the sum, then LayerNorm's own step.
inline void add_norm_forward(ExpectedTrace& t, int depth, std::size_t B, std::size_t L,
                             std::size_t d) {
  t.push_back({depth, "[AddNorm] x + dropout(sublayer(x))", "sum -> " + dims({B, L, d})});
  t.push_back({depth, "[LayerNorm] normalise over d_model", "y -> " + dims({B, L, d})});
}

/// The feed-forward network's forward on `[B, L, d]`, with dropout probability `dropout`.
inline void ffn_forward(ExpectedTrace& t, int depth, std::size_t B, std::size_t L, std::size_t d,
                        std::size_t d_ff, bool training, float dropout) {
  t.push_back({depth, "[FeedForward] linear1 (widen)", "h -> " + dims({B, L, d_ff})});
  t.push_back({depth, "[FeedForward] relu", "h -> " + dims({B, L, d_ff})});
  const char* step = !training         ? "[FeedForward] dropout (evaluation: identity)"
                     : dropout == 0.0f ? "[FeedForward] dropout (p = 0: identity)"
                                       : "[FeedForward] dropout (training)";
  t.push_back({depth, step, "h -> " + dims({B, L, d_ff})});
  t.push_back({depth, "[FeedForward] linear2 (narrow)", "y -> " + dims({B, L, d})});
}

/// One encoder layer on `[B, S, d]`: self-attention, Add & Norm, FFN, Add & Norm.
inline void encoder_layer_forward(ExpectedTrace& t, int depth, const Config& c, std::size_t B,
                                  std::size_t S, bool masked, bool training) {
  t.push_back({depth, "self-attention", ""});
  mha_forward(t, depth + 1, B, S, S, c.d_model, c.n_heads, masked);
  add_norm_forward(t, depth, B, S, c.d_model);
  t.push_back({depth, "feed-forward", ""});
  ffn_forward(t, depth + 1, B, S, c.d_model, c.d_ff, training, c.dropout);
  add_norm_forward(t, depth, B, S, c.d_model);
}

/// One decoder layer: x `[B, T, d]`, memory `[B, S, d]`; both attentions masked.
inline void decoder_layer_forward(ExpectedTrace& t, int depth, const Config& c, std::size_t B,
                                  std::size_t T, std::size_t S, bool training) {
  t.push_back({depth, "masked self-attention", ""});
  mha_forward(t, depth + 1, B, T, T, c.d_model, c.n_heads, true);
  add_norm_forward(t, depth, B, T, c.d_model);
  t.push_back({depth, "cross-attention (queries: decoder, keys/values: encoder output)", ""});
  mha_forward(t, depth + 1, B, T, S, c.d_model, c.n_heads, true);
  add_norm_forward(t, depth, B, T, c.d_model);
  t.push_back({depth, "feed-forward", ""});
  ffn_forward(t, depth + 1, B, T, c.d_model, c.d_ff, training, c.dropout);
  add_norm_forward(t, depth, B, T, c.d_model);
}

/// The encoder stack on src `[B, S]`: embedding, positions, dropout, then every layer.
inline void encoder_forward(ExpectedTrace& t, int depth, const Config& c, std::size_t B,
                            std::size_t S, bool training) {
  const std::string x = "x -> " + dims({B, S, c.d_model});
  t.push_back({depth, "Encoder", ""});
  t.push_back({depth + 1, "[Embedding] look up and scale by sqrt(d_model)", x});
  t.push_back({depth + 1, "[PositionalEncoding] add sin/cos table", x});
  t.push_back({depth + 1, "[Encoder] dropout(embedding + positions)", x});
  for (std::size_t i = 0; i < c.n_encoder_layers; ++i) {
    t.push_back({depth + 1, "encoder layer " + std::to_string(i), ""});
    encoder_layer_forward(t, depth + 2, c, B, S, true, training);
  }
}

/// The decoder stack on tgt_in `[B, T]` and memory `[B, S, d]`.
inline void decoder_forward(ExpectedTrace& t, int depth, const Config& c, std::size_t B,
                            std::size_t T, std::size_t S, bool training) {
  const std::string x = "x -> " + dims({B, T, c.d_model});
  t.push_back({depth, "Decoder", ""});
  t.push_back({depth + 1, "[Embedding] look up and scale by sqrt(d_model)", x});
  t.push_back({depth + 1, "[PositionalEncoding] add sin/cos table", x});
  t.push_back({depth + 1, "[Decoder] dropout(embedding + positions)", x});
  for (std::size_t i = 0; i < c.n_decoder_layers; ++i) {
    t.push_back({depth + 1, "decoder layer " + std::to_string(i), ""});
    decoder_layer_forward(t, depth + 2, c, B, T, S, training);
  }
}

/// The whole model on src `[B, S]`, tgt_in `[B, T]` -> logits `[B, T, tgt_vocab]`.
inline ExpectedTrace transformer_forward(const Config& c, std::size_t B, std::size_t S,
                                         std::size_t T, bool training) {
  ExpectedTrace t;
  t.push_back({0, "Transformer", ""});
  t.push_back({1, "[Transformer] source tokens", "src -> " + dims({B, S})});
  t.push_back({1, "[Transformer] target tokens (shifted right)", "tgt_in -> " + dims({B, T})});
  t.push_back({1, "[Transformer] source padding mask", "src_mask -> " + dims({B, S, S})});
  t.push_back(
      {1, "[Transformer] target padding + subsequent mask", "tgt_mask -> " + dims({B, T, T})});
  t.push_back({1, "[Transformer] cross-attention mask", "cross_mask -> " + dims({B, T, S})});
  encoder_forward(t, 1, c, B, S, training);
  decoder_forward(t, 1, c, B, T, S, training);
  t.push_back({1, "[Transformer] project to the vocabulary",
               "logits -> " + dims({B, T, c.tgt_vocab_size})});
  return t;
}

/// Multi-head attention's backward: the gradients of query input `[B, Lq, d]` and memory
/// `[B, Lk, d]`.
inline void mha_backward(ExpectedTrace& t, int depth, std::size_t B, std::size_t Lq, std::size_t Lk,
                         std::size_t d, std::size_t h) {
  const std::size_t grad_k = d / h;
  const std::string mha = "[MultiHeadAttention] ", sdpa = "[ScaledDotProductAttention] backward";
  t.push_back({depth, mha + "backward W_O", "grad_concat -> " + dims({B, Lq, d})});
  t.push_back({depth, mha + "backward concat", "grad_context -> " + dims({B, h, Lq, grad_k})});
  t.push_back({depth, "ScaledDotProductAttention backward", ""});
  t.push_back({depth + 1, sdpa, "dV = A^T dC -> " + dims({B, h, Lk, grad_k})});
  t.push_back({depth + 1, sdpa, "dA = dC V^T -> " + dims({B, h, Lq, Lk})});
  t.push_back({depth + 1, sdpa, "dS = softmax'(dA) -> " + dims({B, h, Lq, Lk})});
  t.push_back({depth + 1, sdpa, "dQ = dS K / sqrt(d_k) -> " + dims({B, h, Lq, grad_k})});
  t.push_back({depth + 1, sdpa, "dK = dS^T Q / sqrt(d_k) -> " + dims({B, h, Lk, grad_k})});
  t.push_back({depth, mha + "backward split", "dQ -> " + dims({B, Lq, d})});
  t.push_back({depth, mha + "backward split", "dK -> " + dims({B, Lk, d})});
  t.push_back({depth, mha + "backward split", "dV -> " + dims({B, Lk, d})});
  t.push_back({depth, mha + "backward W_Q", "grad_query_input -> " + dims({B, Lq, d})});
  t.push_back({depth, mha + "backward W_K, W_V", "grad_memory -> " + dims({B, Lk, d})});
}

/// Add & Norm's backward on `[B, L, d]`: LayerNorm's, then the sum's two paths.
inline void add_norm_backward(ExpectedTrace& t, int depth, std::size_t B, std::size_t L,
                              std::size_t d) {
  const std::string shape = dims({B, L, d});
  t.push_back({depth, "[LayerNorm] backward normalise (grad_weight, grad_bias summed over rows)",
               "grad_x -> " + shape});
  t.push_back({depth, "[AddNorm] backward x + ...: to the residual, unchanged",
               "grad_residual -> " + shape});
  t.push_back({depth, "[AddNorm] backward dropout: to the sub-layer", "grad_sublayer -> " + shape});
}

/// The feed-forward network's backward on `[B, L, d]`.
inline void ffn_backward(ExpectedTrace& t, int depth, std::size_t B, std::size_t L, std::size_t d,
                         std::size_t d_ff) {
  t.push_back({depth, "[FeedForward] backward linear2", "grad_h -> " + dims({B, L, d_ff})});
  t.push_back({depth, "[FeedForward] backward dropout", "grad_h -> " + dims({B, L, d_ff})});
  t.push_back({depth, "[FeedForward] backward relu", "grad_h -> " + dims({B, L, d_ff})});
  t.push_back({depth, "[FeedForward] backward linear1", "grad_x -> " + dims({B, L, d})});
}

/// The last sub-layer of a layer, backward on `[B, L, d]`: its Add & Norm, the feed-forward
/// network, and the residual and feed-forward paths meeting in `sum` (the layer's own name).
inline void feed_forward_sublayer_backward(ExpectedTrace& t, int depth, const Config& c,
                                           const std::string& layer, const std::string& sum,
                                           std::size_t B, std::size_t L) {
  add_norm_backward(t, depth, B, L, c.d_model);
  t.push_back({depth, "feed-forward backward", ""});
  ffn_backward(t, depth + 1, B, L, c.d_model, c.d_ff);
  t.push_back({depth, "[" + layer + "] residual + feed-forward paths add",
               sum + " -> " + dims({B, L, c.d_model})});
}

/// One encoder layer's backward on `[B, S, d]`: the forward's sub-layers in reverse, and the
/// residual paths meeting.
inline void encoder_layer_backward(ExpectedTrace& t, int depth, const Config& c, std::size_t B,
                                   std::size_t S) {
  const std::string shape = dims({B, S, c.d_model});
  feed_forward_sublayer_backward(t, depth, c, "EncoderLayer", "grad_h", B, S);
  add_norm_backward(t, depth, B, S, c.d_model);
  t.push_back({depth, "self-attention backward", ""});
  mha_backward(t, depth + 1, B, S, S, c.d_model, c.n_heads);
  t.push_back(
      {depth, "[EncoderLayer] residual + query, key, value paths add", "grad_x -> " + shape});
}

/// One decoder layer's backward: x `[B, T, d]`, memory `[B, S, d]`.
inline void decoder_layer_backward(ExpectedTrace& t, int depth, const Config& c, std::size_t B,
                                   std::size_t T, std::size_t S) {
  const std::string shape = dims({B, T, c.d_model});
  feed_forward_sublayer_backward(t, depth, c, "DecoderLayer", "grad_h2", B, T);
  add_norm_backward(t, depth, B, T, c.d_model);
  t.push_back({depth, "cross-attention backward", ""});
  mha_backward(t, depth + 1, B, T, S, c.d_model, c.n_heads);
  t.push_back(
      {depth, "[DecoderLayer] residual + cross-attention query paths add", "grad_h1 -> " + shape});
  add_norm_backward(t, depth, B, T, c.d_model);
  t.push_back({depth, "masked self-attention backward", ""});
  mha_backward(t, depth + 1, B, T, T, c.d_model, c.n_heads);
  t.push_back(
      {depth, "[DecoderLayer] residual + query, key, value paths add", "grad_x -> " + shape});
}

/// The end of a stack's backward on `[B, L, d]`: dropout, the positions, the embedding's scatter.
inline void stack_input_backward(ExpectedTrace& t, int depth, const std::string& stack,
                                 std::size_t B, std::size_t L, std::size_t d, std::size_t vocab) {
  t.push_back({depth, "[" + stack + "] backward dropout", "grad_x -> " + dims({B, L, d})});
  t.push_back({depth, "[PositionalEncoding] backward: no parameters, the gradient passes unchanged",
               "grad_x -> " + dims({B, L, d})});
  t.push_back({depth, "[Embedding] backward: scatter-add grad_x * sqrt(d_model) into the ids' rows",
               "grad_weight -> " + dims({vocab, d})});
}

/// The whole model's backward from grad_logits `[B, T, tgt_vocab]` (src `[B, S]`).
inline ExpectedTrace transformer_backward(const Config& c, std::size_t B, std::size_t S,
                                          std::size_t T) {
  ExpectedTrace t;
  const std::size_t d = c.d_model;
  t.push_back({0, "Transformer backward", ""});
  t.push_back({1, "[Transformer] backward generator (W, b)", "grad_hidden -> " + dims({B, T, d})});
  t.push_back({1, "Decoder backward", ""});
  for (std::size_t i = c.n_decoder_layers; i-- > 0;) {
    t.push_back({2, "decoder layer " + std::to_string(i) + " backward", ""});
    decoder_layer_backward(t, 3, c, B, T, S);
  }
  t.push_back({2, "[Decoder] encoder output's gradient, summed over the layers",
               "grad_memory -> " + dims({B, S, d})});
  const std::size_t tgt_table = c.shared_embedding ? c.src_vocab_size : c.tgt_vocab_size;
  stack_input_backward(t, 2, "Decoder", B, T, d, tgt_table);
  t.push_back({1, "Encoder backward", ""});
  for (std::size_t i = c.n_encoder_layers; i-- > 0;) {
    t.push_back({2, "encoder layer " + std::to_string(i) + " backward", ""});
    encoder_layer_backward(t, 3, c, B, S);
  }
  stack_input_backward(t, 2, "Encoder", B, S, d, c.src_vocab_size);
  return t;
}

namespace detail {
// Does one captured line (indentation removed, at `depth`) match the expectation?
inline bool matches(int depth, const std::string& line, const TraceLine& want) {
  if (depth != want.depth) return false;
  if (want.result.empty()) return line == want.head;
  // A step: "[Component] what", then at least one space, then "tensor -> [shape]", then the end
  // or a space (so that "[2, 5]" does not match "[2, 5, 16]").
  if (line.rfind(want.head, 0) != 0 || line.size() == want.head.size() ||
      line[want.head.size()] != ' ')
    return false;
  const std::size_t start = line.find_first_not_of(' ', want.head.size());
  if (start == std::string::npos || line.compare(start, want.result.size(), want.result) != 0)
    return false;
  const std::size_t end = start + want.result.size();
  return end == line.size() || line[end] == ' ';
}
}  // namespace detail

/// Checks the captured trace text (trace::Capture::text()) against `expected`, line by line,
/// nesting included; reports the first line that differs.
inline void check_trace(const std::string& text, const ExpectedTrace& expected) {
  std::vector<std::pair<int, std::string>> got;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const std::size_t indent = std::min(line.find_first_not_of(' '), line.size());
    got.emplace_back(static_cast<int>(indent / 2), line.substr(indent));
  }
  std::size_t first_difference = std::min(got.size(), expected.size());
  for (std::size_t i = 0; i < std::min(got.size(), expected.size()); ++i)
    if (!detail::matches(got[i].first, got[i].second, expected[i])) {
      first_difference = i;
      break;
    }
  if (first_difference < std::min(got.size(), expected.size())) {
    const TraceLine& want = expected[first_difference];
    FAIL_CHECK("trace line " << first_difference << " differs:\n  got      (depth "
                             << got[first_difference].first << ") " << got[first_difference].second
                             << "\n  expected (depth " << want.depth << ") " << want.head << "  "
                             << want.result);
  }
  INFO("captured " << got.size() << " trace lines, expected " << expected.size());
  CHECK(got.size() == expected.size());
}

}  // namespace tfm::testing
