// Solution of the exercise model_masks (chapter 10). Try the exercise first.
#include "exercise/tensor.hpp"

namespace ex {

void model_masks(const Ids& src, const Ids& tgt_in, Mask& encoder_mask, Mask& decoder_mask,
                 Mask& cross_mask) {
  const std::size_t B = src.dim(0), S = src.dim(1), T = tgt_in.dim(1);
  encoder_mask = Mask({B, S, S});
  decoder_mask = Mask({B, T, T});
  cross_mask = Mask({B, T, S});
  for (std::size_t b = 0; b < B; ++b) {
    for (std::size_t j = 0; j < S; ++j) {
      for (std::size_t i = 0; i < S; ++i) encoder_mask(b, i, j) = src(b, j) != 0;
      for (std::size_t i = 0; i < T; ++i) cross_mask(b, i, j) = src(b, j) != 0;
    }
    for (std::size_t i = 0; i < T; ++i)
      for (std::size_t j = 0; j <= i; ++j) decoder_mask(b, i, j) = tgt_in(b, j) != 0;
  }
}

}  // namespace ex
