// Exercise, chapter 10: which mask goes where in the Transformer.
// Check it with: ./tutorial exercise model_masks
//
// The model has three attentions, each with its own mask (1 = may attend, 0 = blocked):
//   encoder self-attention:  queries = source positions, keys = source positions
//   decoder self-attention:  queries = target positions, keys = target positions
//   decoder cross-attention: queries = target positions, keys = source positions (memory)
// A key that is padding (id 0) is blocked; in the decoder's self-attention a query also
// may not see a later position (j > i).
//
// Shapes: src [B, S], tgt_in [B, T] token ids
// -> encoder_mask [B, S, S], decoder_mask [B, T, T], cross_mask [B, T, S].
#include "exercise/tensor.hpp"

namespace ex {

void model_masks(const Ids& src, const Ids& tgt_in, Mask& encoder_mask,
                 Mask& decoder_mask, Mask& cross_mask) {
}

}  // namespace ex
