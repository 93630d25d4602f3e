// Checks of the exercise cached_step (chapter 11).
#include <cmath>

#include "attention_reference.hpp"
#include "report.hpp"
#include "tfm/layers/mask.hpp"
#include "tfm/layers/positional_encoding.hpp"

namespace ex {
Tensor cached_step(const Tensor& x_t, std::size_t t, const Tensor& pe, const Tensor& w_q,
                   const Tensor& w_k, const Tensor& w_v, std::vector<Tensor>& keys,
                   std::vector<Tensor>& values);
}

using namespace ex;
using namespace ex::check;

namespace {

// X [L, d] times Wᵀ: the projections of every position at once.
Tensor project(const Tensor& x, const Tensor& w) {
  Tensor out({x.dim(0), w.dim(0)});
  for (std::size_t l = 0; l < x.dim(0); ++l)
    for (std::size_t i = 0; i < w.dim(0); ++i)
      for (std::size_t c = 0; c < w.dim(1); ++c) out(l, i) += w(i, c) * x(l, c);
  return out;
}

// The whole sequence at once, without a cache: H = X + pe[positions], the library's attention
// under the subsequent mask. Row t is what step t must give. `positions_from_zero` gives every
// token pe[0] instead: the classic bug of a cached step.
Tensor full_sequence(const Tensor& x, const Tensor& pe, const Tensor& w_q, const Tensor& w_k,
                     const Tensor& w_v, bool every_position_zero) {
  const std::size_t L = x.dim(0), d = x.dim(1);
  Tensor h = x;
  for (std::size_t l = 0; l < L; ++l)
    for (std::size_t c = 0; c < d; ++c) h(l, c) += pe(every_position_zero ? 0 : l, c);
  const auto as_heads = [&](const Tensor& t) {
    Tensor out({1, 1, L, d});
    out.flat() = t.flat();
    return out;
  };
  const Mask mask = to_ex(tfm::subsequent_mask(1, L));
  const Tensor context = library_attention(as_heads(project(h, w_q)), as_heads(project(h, w_k)),
                                           as_heads(project(h, w_v)), mask)
                             .context;
  return as_rows(context);
}

}  // namespace

int main() {
  Report report("cached_step", "ex::cached_step(x_t, t, pe, w_q, w_k, w_v, keys, values)");
  unsigned seed = 1000;
  for (auto [L, d] : std::vector<std::pair<std::size_t, std::size_t>>{{1, 4}, {5, 8}, {9, 16}}) {
    const std::string size = std::to_string(L) + " steps, d_model " + std::to_string(d);
    const Tensor x = random_tensor({L, d}, seed += 10);
    const Tensor pe = to_ex(tfm::PositionalEncoding(32, d).table());
    const Tensor w_q = random_tensor({d, d}, seed + 1, -0.5f, 0.5f);
    const Tensor w_k = random_tensor({d, d}, seed + 2, -0.5f, 0.5f);
    const Tensor w_v = random_tensor({d, d}, seed + 3, -0.5f, 0.5f);
    const Tensor want = full_sequence(x, pe, w_q, w_k, w_v, false);
    const Tensor position_zero = full_sequence(x, pe, w_q, w_k, w_v, true);
    report.check(
        "steps 0 .. " + std::to_string(L - 1) +
            " against the whole sequence at once "
            "(the library's attention under the subsequent mask), " +
            size,
        [&] {
          std::vector<Tensor> keys, values;
          for (std::size_t t = 0; t < L; ++t) {
            Tensor x_t({d});
            for (std::size_t c = 0; c < d; ++c) x_t(c) = x(t, c);
            const Tensor got = cached_step(x_t, t, pe, w_q, w_k, w_v, keys, values);
            Tensor want_t({d}), zero_t({d});
            for (std::size_t c = 0; c < d; ++c)
              want_t(c) = want(t, c), zero_t(c) = position_zero(t, c);
            std::string problem =
                compare("out at step " + std::to_string(t) + ":", want_t, got,
                        {{"what the step gives with pe[0] in place of pe[t]: every "
                          "token was encoded as if it stood at position 0",
                          zero_t}},
                        1e-5f, 1e-3f);
            if (!problem.empty()) return problem;
            if (keys.size() != t + 1 || values.size() != t + 1)
              return "after step " + std::to_string(t) + " the cache holds " +
                     std::to_string(keys.size()) + " keys and " + std::to_string(values.size()) +
                     " values, expected " + std::to_string(t + 1);
          }
          return std::string();
        },
        "add pe[t] (the step's own position), append k and v BEFORE attending (the token attends "
        "to itself too), and scale the scores by 1 / sqrt(d_model).");
  }
  return report.finish();
}
