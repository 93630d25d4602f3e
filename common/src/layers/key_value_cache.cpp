#include "tfm/layers/key_value_cache.hpp"

#include <algorithm>

namespace tfm {

namespace {

// cached [B, H, L, d] + fresh [B, H, n, d] -> [B, H, L + n, d]
Tensor4 append_positions(const Tensor4& cached, const Tensor4& fresh, const char* name) {
  if (cached.size() == 0) return fresh;
  require_shape("KeyValueCache", name, fresh,
                {cached.shape(0), cached.shape(1), kAnyExtent, cached.shape(3)},
                "(batch, heads, new_len, d_k)");
  const std::size_t B = cached.shape(0), H = cached.shape(1), d = cached.shape(3);
  const std::size_t L = cached.shape(2), n = fresh.shape(2);
  Tensor4 joined = Tensor4::from_shape({B, H, L + n, d});
  for (std::size_t bh = 0; bh < B * H; ++bh) {  // one [L + n, d] block per (batch, head)
    float* out = joined.data() + bh * (L + n) * d;
    const float* old_rows = cached.data() + bh * L * d;
    const float* new_rows = fresh.data() + bh * n * d;
    std::copy(old_rows, old_rows + L * d, out);
    std::copy(new_rows, new_rows + n * d, out + L * d);
  }
  return joined;
}

}  // namespace

void KeyValueCache::append(const Tensor4& new_keys, const Tensor4& new_values) {
  // keys [B, H, L, d_k] + new_keys [B, H, n, d_k] -> [B, H, L + n, d_k]; values likewise.
  // Growing by one copy per step keeps the layout ScaledDotProductAttention reads. (A
  // production decoder preallocates max_len rows instead; the copy costs about as much as the
  // attention reading the cache once, so the step stays O(L) either way.)
  require(new_keys.shape(2) == new_values.shape(2), "KeyValueCache",
          "keys " + shape_string(new_keys.shape()) + " and values " +
              shape_string(new_values.shape()) + " cover different numbers of positions");
  if (new_keys.shape(2) == 0) return;  // no new position (cross-attention after its first step)
  keys = append_positions(keys, new_keys, "new keys");
  values = append_positions(values, new_values, "new values");
}

}  // namespace tfm
