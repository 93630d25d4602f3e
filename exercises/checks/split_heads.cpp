// Checks of the exercise split_heads (chapter 06).
#include <cmath>

#include "convert.hpp"
#include "report.hpp"
#include "tfm/layers/multi_head_attention.hpp"

namespace ex {
Tensor split_heads(const Tensor& x, std::size_t n_heads);
Tensor concat_heads(const Tensor& x);
}  // namespace ex

using namespace ex;
using namespace ex::check;

namespace {

// x [B, L, H * d_k] split the wrong way: heads interleaved (column c * H + h).
Tensor interleaved_split(const Tensor& x, std::size_t H) {
  const std::size_t B = x.dim(0), L = x.dim(1), d_k = x.dim(2) / H;
  Tensor out({B, H, L, d_k});
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t l = 0; l < L; ++l)
        for (std::size_t c = 0; c < d_k; ++c) out(b, h, l, c) = x(b, l, c * H + h);
  return out;
}

// A plain reshape [B, L, H * d_k] -> [B, H, L, d_k] without the transpose (PyTorch's
// x.view(B, H, L, d_k)): the same entries in the same order.
Tensor reshaped_only(const Tensor& x, std::size_t H) {
  Tensor out({x.dim(0), H, x.dim(1), x.dim(2) / H});
  out.flat() = x.flat();
  return out;
}

}  // namespace

int main() {
  Report report("split_heads", "ex::split_heads(x, n_heads) and ex::concat_heads(x)");
  struct Size {
    std::size_t B, L, H, d_k;
  };
  const std::vector<Size> sizes = {{1, 1, 1, 4}, {2, 3, 2, 4}, {2, 5, 4, 3}, {3, 4, 8, 2}};
  unsigned seed = 60;
  for (const Size& s : sizes) {
    const std::string size = "x [" + std::to_string(s.B) + ", " + std::to_string(s.L) + ", " +
                             std::to_string(s.H * s.d_k) + "], " + std::to_string(s.H) + " heads";
    const Tensor x = random_tensor({s.B, s.L, s.H * s.d_k}, seed += 1);
    report.check(
        "split_heads against the library, " + size,
        [&] {
          return compare("split_heads(x)", to_ex(tfm::split_heads(to_xt<3>(x), s.H)),
                         split_heads(x, s.H),
                         {{"a split with the heads interleaved (column c * H + h, not h * d_k + c)",
                           interleaved_split(x, s.H)},
                          {"a reshape to [B, H, L, d_k] without the transpose of axes L and H",
                           reshaped_only(x, s.H)}},
                         0.0f, 0.0f);
        },
        "head h owns the columns h * d_k .. h * d_k + d_k - 1 of every position; the output's axes "
        "are (batch, head, position, column).");
    const Tensor heads = random_tensor({s.B, s.H, s.L, s.d_k}, seed += 1);
    report.check(
        "concat_heads against the library, heads [" + std::to_string(s.B) + ", " +
            std::to_string(s.H) + ", " + std::to_string(s.L) + ", " + std::to_string(s.d_k) + "]",
        [&] {
          return compare("concat_heads(x)", to_ex(tfm::concat_heads(to_xt<4>(heads))),
                         concat_heads(heads), 0.0f, 0.0f);
        },
        "out[b, l, h * d_k + c] = x[b, h, l, c]: the heads side by side again.");
  }
  report.check(
      "backward: concat_heads is split_heads' backward (sum(split(x) * g) = sum(x * concat(g)))",
      [&] {
        const Tensor x = random_tensor({2, 3, 12}, 70), g = random_tensor({2, 4, 3, 3}, 71);
        const Tensor split = split_heads(x, 4), joined = concat_heads(g);
        std::string problem =
            compare("split_heads(x)", Tensor({2, 4, 3, 3}), Tensor(split.shape()), 0.0f, 0.0f);
        if (problem.empty())
          problem =
              compare("concat_heads(g)", Tensor({2, 3, 12}), Tensor(joined.shape()), 0.0f, 0.0f);
        if (!problem.empty()) return problem;
        const double forward = dot(split, g), backward = dot(x, joined);
        if (std::abs(forward - backward) <= 1e-4 * (1.0 + std::abs(forward))) return std::string();
        return "sum(split_heads(x) * g) = " + std::to_string(forward) +
               " but sum(x * concat_heads(g)) = " + std::to_string(backward) +
               ": the two do not move entries the same way";
      },
      "concat_heads must put back every entry exactly where split_heads took it from.");
  report.check(
      "concat_heads(split_heads(x)) = x",
      [&] {
        const Tensor x = random_tensor({2, 5, 12}, 72);
        return compare("concat_heads(split_heads(x))", x, concat_heads(split_heads(x, 3)), 0.0f,
                       0.0f);
      },
      "the two are each other's inverse.");
  return report.finish();
}
