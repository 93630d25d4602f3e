// Checks of the exercise model_masks (chapter 10).
#include "convert.hpp"
#include "report.hpp"
#include "tfm/model/transformer.hpp"

namespace ex {
void model_masks(const Ids& src, const Ids& tgt_in, Mask& encoder_mask, Mask& decoder_mask,
                 Mask& cross_mask);
}

using namespace ex;
using namespace ex::check;

int main() {
  Report report("model_masks",
                "ex::model_masks(src, tgt_in, encoder_mask, decoder_mask, cross_mask)");
  struct Case {
    tfm::TokenIds src, tgt_in;
  };
  // Source and target of different lengths, both padded (id 0) in the second row.
  const std::vector<Case> cases = {{{{5, 6, 7}}, {{1, 8, 9, 4}}},
                                   {{{5, 6, 7, 8, 9}, {5, 6, 0, 0, 0}}, {{1, 4, 4}, {1, 7, 0}}},
                                   {{{3, 3, 0, 0}, {4, 5, 6, 0}, {7, 0, 0, 0}},
                                    {{1, 2, 3, 0, 0, 0}, {1, 2, 0, 0, 0, 0}, {1, 9, 9, 9, 9, 9}}}};
  for (const Case& c : cases) {
    const std::size_t B = c.src.shape(0), S = c.src.shape(1), T = c.tgt_in.shape(1);
    const std::string size = "src [" + std::to_string(B) + ", " + std::to_string(S) +
                             "], tgt_in [" + std::to_string(B) + ", " + std::to_string(T) + "]";
    const tfm::BatchMasks want = tfm::make_masks(c.src, c.tgt_in);
    Mask encoder_mask, decoder_mask, cross_mask;
    const auto run = [&] {
      model_masks(to_ex(c.src), to_ex(c.tgt_in), encoder_mask, decoder_mask, cross_mask);
    };
    report.check(
        "encoder self-attention mask against the library's make_masks, " + size,
        [&] {
          run();
          return compare("encoder_mask", to_ex(want.source), encoder_mask);
        },
        "the encoder attends from source to source: [B, S, S], column j blocked where src[b, j] is "
        "padding.");
    report.check(
        "decoder self-attention mask, " + size,
        [&] {
          run();
          return compare("decoder_mask", to_ex(want.target), decoder_mask);
        },
        "[B, T, T]: key j is allowed if j <= i AND tgt_in[b, j] is not padding (both masks at "
        "once); "
        "without the subsequent part a target position would see the word it must predict.");
    report.check(
        "cross-attention mask, " + size,
        [&] {
          run();
          return compare("cross_mask", to_ex(want.cross), cross_mask);
        },
        "queries come from the target, keys from the source: [B, T, S], blocked where the SOURCE "
        "is padding; no subsequent part (the whole source is known).");
  }
  return report.finish();
}
