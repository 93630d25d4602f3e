/// \file inspection.hpp
/// \brief Pictures (chapter 11): looking inside a trained model on one input — for every output position the
/// tokens it weighed and their probabilities, and the attention of every layer and head (encoder
/// self, decoder self, cross) — for the playground and the programs' `--attention-dir`
/// (pictures/attention_dir.hpp).
///
/// The decoded output is fed back with teacher forcing (`<bos>` + output[:-1]), one forward with
/// dropout off: position t's logits are those the decoder computed when it chose output[t], and
/// every attention keeps the weights of that forward (MultiHeadAttention::attention_weights).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tfm/core/tensor.hpp"
#include "tfm/data/vocabulary.hpp"
#include "tfm/model/transformer.hpp"

namespace tfm {

/// One token the model weighed at an output position.
struct TokenChoice {
  std::int32_t id = 0;       ///< in the target vocabulary
  float probability = 0.0f;  ///< softmax of the logits, over the whole vocabulary
};

/// The three attentions of a layer stack, as the weights of the inspected forward.
enum class AttentionKind {
  kEncoderSelf,  ///< encoder layer: source tokens attend to source tokens
  kDecoderSelf,  ///< decoder layer, causal: output positions attend to earlier ones
  kCross,        ///< decoder layer: output positions attend to source tokens
};
/// "encoder_self", "decoder_self" or "cross" (file names, the page's buttons).
const char* attention_kind_name(AttentionKind kind);
/// A sentence that says what the kind shows, for a heat map's title.
const char* attention_kind_title(AttentionKind kind);

/// What inspect() saw.
struct Inspection {
  TokenIds src;     ///< `[1, S]`: the encoder's input
  TokenIds output;  ///< `[1, T]`: the decoded output, `<bos>` not included
  /// T rows: the `top_k` most probable tokens at each output position, most probable first.
  std::vector<std::vector<TokenChoice>> top_choices;
  std::vector<Tensor4> encoder_self;  ///< one per encoder layer, `[1, H, S, S]`
  std::vector<Tensor4> decoder_self;  ///< one per decoder layer, `[1, H, T, T]`
  std::vector<Tensor4> cross;         ///< one per decoder layer, `[1, H, T, S]`

  /// The weights of one kind, layer and head, `[Lq, Lk]`; throws std::out_of_range naming the
  /// layer or head the model does not have.
  Tensor2 attention(AttentionKind kind, std::size_t layer, std::size_t head) const;
  /// The labels of the rows and the columns of attention(kind, ...): source symbols for the
  /// encoder side, the decoder's input symbols (`<bos>` + output[:-1]) for the queries of the
  /// decoder side, so that row t is the position that chose output[t].
  std::pair<std::vector<std::string>, std::vector<std::string>> attention_labels(
      AttentionKind kind, const Vocabulary& source, const Vocabulary& target) const;
};

/// Inspects `model` on src `[1, S]` and the output it decoded, `[1, T]` (T >= 1), keeping the
/// `top_k` most probable tokens per position (ties: the smaller id first). Throws ShapeError for
/// a batch other than 1 or an empty output. Restores the model's training mode.
Inspection inspect(Transformer& model, const TokenIds& src, const TokenIds& output,
                   std::size_t top_k);

}  // namespace tfm
