/// \file attention_reference.hpp
/// \brief The library's scaled dot-product attention on ex::Arrays: what the attention
/// exercises are checked against.
#pragma once

#include "convert.hpp"
#include "report.hpp"
#include "tfm/layers/attention.hpp"

namespace ex::check {

/// The library's forward (and, given grad_context, backward) on one set of inputs.
struct AttentionReference {
  Tensor context, weights, grad_query, grad_key, grad_value;
};

/// Random inputs of one size: B, H, Lq, Lk, d_k, d_v; the mask blocks the last `padded` keys
/// of every second sequence (empty when padded is 0).
struct AttentionInputs {
  Tensor query, key, value, grad_context;
  Mask mask;
};

inline AttentionInputs attention_inputs(std::size_t B, std::size_t H, std::size_t Lq,
                                        std::size_t Lk, std::size_t d_k, std::size_t d_v,
                                        std::size_t padded, unsigned seed) {
  AttentionInputs in{random_tensor({B, H, Lq, d_k}, seed, -2.0f, 2.0f),
                     random_tensor({B, H, Lk, d_k}, seed + 1, -2.0f, 2.0f),
                     random_tensor({B, H, Lk, d_v}, seed + 2),
                     random_tensor({B, H, Lq, d_v}, seed + 3), Mask()};
  if (padded > 0) {
    in.mask = Mask({B, Lq, Lk});
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t i = 0; i < Lq; ++i)
        for (std::size_t j = 0; j < Lk; ++j) in.mask(b, i, j) = b % 2 == 0 || j + padded < Lk;
  }
  return in;
}

inline AttentionReference library_attention(const Tensor& query, const Tensor& key,
                                            const Tensor& value, const Mask& mask,
                                            const Tensor* grad_context = nullptr) {
  tfm::ScaledDotProductAttention attention;
  const tfm::Mask library_mask = mask.rank() > 0 ? to_xt<3>(mask) : tfm::Mask();
  AttentionReference out;
  out.context = to_ex(attention.forward(to_xt<4>(query), to_xt<4>(key), to_xt<4>(value),
                                        mask.rank() > 0 ? &library_mask : nullptr));
  out.weights = to_ex(attention.weights());
  if (grad_context != nullptr) {
    const auto grads = attention.backward(to_xt<4>(*grad_context));
    out.grad_query = to_ex(grads.query);
    out.grad_key = to_ex(grads.key);
    out.grad_value = to_ex(grads.value);
  }
  return out;
}

}  // namespace ex::check
