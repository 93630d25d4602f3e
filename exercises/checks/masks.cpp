// Checks of the exercise masks (chapter 04).
#include "convert.hpp"
#include "report.hpp"
#include "tfm/layers/mask.hpp"

namespace ex {
Mask padding_mask(const Ids& keys, std::size_t len_q, std::int32_t pad_id);
Mask subsequent_mask(std::size_t batch, std::size_t len);
}  // namespace ex

using namespace ex;
using namespace ex::check;

int main() {
  Report report("masks",
                "ex::padding_mask(keys, len_q, pad_id) and ex::subsequent_mask(batch, len)");
  // Two sentences of 5 keys, the second padded with two <pad> (id 0); a third all padding.
  tfm::TokenIds keys = {{4, 7, 9, 3, 5}, {6, 8, 2, 0, 0}, {0, 0, 0, 0, 0}};
  for (std::size_t len_q : {5u, 3u}) {
    report.check(
        "padding_mask against the library, keys [3, 5], len_q " + std::to_string(len_q) +
            " (shape [3, " + std::to_string(len_q) + ", 5])",
        [&] {
          return compare("mask", to_ex(tfm::padding_mask(keys, len_q, 0)),
                         padding_mask(to_ex(keys), len_q, 0));
        },
        "the mask depends on the KEY position j only (keys[b, j] == pad_id blocks column j for "
        "every query i); its shape is [batch, len_q, len_k]: len_q can differ from len_k "
        "(cross-attention).");
  }
  report.check(
      "padding_mask with pad_id 3 (the pad id is a parameter, not always 0)",
      [&] {
        return compare("mask", to_ex(tfm::padding_mask(keys, 4, 3)),
                       padding_mask(to_ex(keys), 4, 3));
      },
      "compare with pad_id, not with 0.");
  for (std::size_t len : {1u, 4u, 9u}) {
    report.check(
        "subsequent_mask against the library, batch 2, len " + std::to_string(len),
        [&] {
          return compare("mask", to_ex(tfm::subsequent_mask(2, len)), subsequent_mask(2, len));
        },
        "query i may see keys j <= i: the diagonal is 1 (a position sees itself), above it 0.");
  }
  return report.finish();
}
