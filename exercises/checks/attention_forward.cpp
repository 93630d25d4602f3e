// Checks of the exercise attention_forward (chapter 05).
#include <cmath>

#include "attention_reference.hpp"
#include "report.hpp"

namespace ex {
Tensor attention_forward(const Tensor& query, const Tensor& key, const Tensor& value,
                         const Mask& mask, Tensor& weights);
}

using namespace ex;
using namespace ex::check;

namespace {

// softmax without the mask, then the blocked weights set to 0: rows no longer sum to 1.
Tensor masked_after_softmax(const AttentionInputs& in) {
  Tensor weights = library_attention(in.query, in.key, in.value, Mask()).weights;
  for (std::size_t b = 0; b < weights.dim(0); ++b)
    for (std::size_t h = 0; h < weights.dim(1); ++h)
      for (std::size_t i = 0; i < weights.dim(2); ++i)
        for (std::size_t j = 0; j < weights.dim(3); ++j)
          if (in.mask(b, i, j) == 0) weights(b, h, i, j) = 0.0f;
  return weights;
}

// The library's weights for Q * sqrt(d_k): softmax(Q Kᵀ) V, the scale left out.
Tensor unscaled_weights(const AttentionInputs& in) {
  Tensor query = in.query;
  for (float& x : query.flat()) x *= std::sqrt(float(in.query.dim(3)));
  return library_attention(query, in.key, in.value, in.mask).weights;
}

const char* const kHint =
    "scores = Q Kᵀ / sqrt(d_k) (d_k = query's last extent); blocked scores become -1e9 BEFORE "
    "the softmax; the softmax runs over the last axis (the keys j); context = weights V.";

}  // namespace

int main() {
  Report report("attention_forward", "ex::attention_forward(query, key, value, mask, weights)");
  struct Size {
    std::size_t B, H, Lq, Lk, d_k, d_v, padded;
  };
  const std::vector<Size> sizes = {
      {1, 1, 3, 3, 4, 4, 0}, {2, 2, 4, 6, 8, 5, 0}, {2, 3, 5, 5, 16, 16, 2}, {3, 2, 4, 7, 8, 3, 3}};
  report.check(
      "shapes: context [B, H, Lq, d_v] = [2, 2, 4, 5], weights [B, H, Lq, Lk] = [2, 2, 4, 6]",
      [&] {
        const AttentionInputs in = attention_inputs(2, 2, 4, 6, 8, 5, 0, 11);
        const AttentionReference ref = library_attention(in.query, in.key, in.value, in.mask);
        Tensor weights;
        const Tensor context = attention_forward(in.query, in.key, in.value, in.mask, weights);
        std::string problem = compare("context", ref.context, context, 1e9f, 0.0f);
        return problem.empty() ? compare("weights", ref.weights, weights, 1e9f, 0.0f) : problem;
      },
      "context takes its last extent from value (d_v), the weights from key (Lk).");
  unsigned seed = 20;
  for (const Size& s : sizes) {
    const std::string size = "B " + std::to_string(s.B) + ", H " + std::to_string(s.H) + ", Lq " +
                             std::to_string(s.Lq) + ", Lk " + std::to_string(s.Lk) + ", d_k " +
                             std::to_string(s.d_k) +
                             (s.padded ? ", with a padding mask" : ", no mask");
    const AttentionInputs in =
        attention_inputs(s.B, s.H, s.Lq, s.Lk, s.d_k, s.d_v, s.padded, seed += 10);
    std::vector<Mistake> mistakes = {
        {"softmax(Q Kᵀ) without the 1/sqrt(d_k) scale", unscaled_weights(in)}};
    if (s.padded)
      mistakes.push_back({"the softmax's weights with the mask applied AFTER the softmax",
                          masked_after_softmax(in)});
    report.check(
        "weights against the library's ScaledDotProductAttention, " + size,
        [&] {
          const AttentionReference ref = library_attention(in.query, in.key, in.value, in.mask);
          Tensor weights;
          attention_forward(in.query, in.key, in.value, in.mask, weights);
          return compare("weights", ref.weights, weights, mistakes, 1e-5f, 1e-3f);
        },
        kHint);
    report.check(
        "context against the library, " + size,
        [&] {
          const AttentionReference ref = library_attention(in.query, in.key, in.value, in.mask);
          Tensor weights;
          return compare("context", ref.context,
                         attention_forward(in.query, in.key, in.value, in.mask, weights), 1e-5f,
                         1e-3f);
        },
        "context[b, h, i, :] = sum_j weights[b, h, i, j] * value[b, h, j, :].");
  }
  report.check(
      "the mask goes before the softmax: each row of weights sums to 1, blocked entries are 0",
      [&] {
        const AttentionInputs in = attention_inputs(2, 2, 4, 6, 8, 8, 3, 99);
        Tensor weights;
        attention_forward(in.query, in.key, in.value, in.mask, weights);
        if (weights.shape() != std::vector<std::size_t>{2, 2, 4, 6})
          return compare("weights", Tensor({2, 2, 4, 6}), weights);
        for (std::size_t b = 0; b < 2; ++b)
          for (std::size_t h = 0; h < 2; ++h)
            for (std::size_t i = 0; i < 4; ++i) {
              double sum = 0.0;
              for (std::size_t j = 0; j < 6; ++j) {
                sum += weights(b, h, i, j);
                if (in.mask(b, i, j) == 0 && weights(b, h, i, j) > 1e-6f)
                  return "weights" + shape_text({b, h, i, j}) + " = " +
                         std::to_string(weights(b, h, i, j)) + " but the mask blocks key " +
                         std::to_string(j);
              }
              if (std::abs(sum - 1.0) > 1e-4)
                return "row weights" + shape_text({b, h, i}) + " sums to " + std::to_string(sum) +
                       ", not 1";
            }
        return std::string();
      },
      "set blocked SCORES to -1e9 and then take the softmax: the weights of blocked keys become "
      "0 and the others still sum to 1. Zeroing the weights after the softmax leaves rows that "
      "sum to less than 1.");
  report.check(
      "PyTorch's result (tests/fixtures/attention/self_masked_*.npy)",
      [&] {
        const Tensor float_mask = load_fixture("attention/self_masked_mask");
        Mask mask(float_mask.shape());
        for (std::size_t i = 0; i < mask.size(); ++i) mask.flat()[i] = float_mask.flat()[i] != 0.0f;
        Tensor weights;
        const Tensor context = attention_forward(
            load_fixture("attention/self_masked_q"), load_fixture("attention/self_masked_k"),
            load_fixture("attention/self_masked_v"), mask, weights);
        std::string problem = compare("weights", load_fixture("attention/self_masked_weights"),
                                      weights, 1e-5f, 1e-3f);
        return problem.empty() ? compare("context", load_fixture("attention/self_masked_context"),
                                         context, 1e-5f, 1e-3f)
                               : problem;
      },
      kHint);
  return report.finish();
}
