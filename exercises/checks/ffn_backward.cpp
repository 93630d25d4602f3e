// Checks of the exercise ffn_backward (chapter 07).
#include "convert.hpp"
#include "report.hpp"
#include "tfm/core/random.hpp"
#include "tfm/layers/feed_forward.hpp"

namespace ex {
Tensor ffn_forward(const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& w2,
                   const Tensor& b2);
void ffn_backward(const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& w2,
                  const Tensor& d_y, Tensor& d_x, Tensor& d_w1, Tensor& d_b1, Tensor& d_w2,
                  Tensor& d_b2);
}  // namespace ex

using namespace ex;
using namespace ex::check;

namespace {

struct Ffn {
  Tensor x, w1, b1, w2, b2, d_y;
};

// The result of one forward and backward of the network, by the library or by the learner.
struct Result {
  Tensor y, d_x, d_w1, d_b1, d_w2, d_b2;
};

Ffn random_ffn(std::size_t N, std::size_t d_model, std::size_t d_ff, unsigned seed) {
  return {random_tensor({N, d_model}, seed),  random_tensor({d_ff, d_model}, seed + 1),
          random_tensor({d_ff}, seed + 2),    random_tensor({d_model, d_ff}, seed + 3),
          random_tensor({d_model}, seed + 4), random_tensor({N, d_model}, seed + 5)};
}

Result library(const Ffn& f) {
  tfm::Rng rng(1);
  tfm::FeedForward ffn(f.x.dim(1), f.w1.dim(0), true, 0.0f, 1, rng);
  ffn.linear1.weight.value = to_xt<2>(f.w1);
  ffn.linear1.bias.value = to_xt<1>(f.b1);
  ffn.linear2.weight.value = to_xt<2>(f.w2);
  ffn.linear2.bias.value = to_xt<1>(f.b2);
  // The library works on [B, L, d]: the N rows are one sequence, [1, N, d].
  Tensor x3({1, f.x.dim(0), f.x.dim(1)}), d_y3({1, f.x.dim(0), f.x.dim(1)});
  x3.flat() = f.x.flat();
  d_y3.flat() = f.d_y.flat();
  Result r{Tensor(f.x.shape()), Tensor(f.x.shape()), {}, {}, {}, {}};
  r.y.flat() = to_ex(ffn.forward(to_xt<3>(x3))).flat();
  r.d_x.flat() = to_ex(ffn.backward(to_xt<3>(d_y3))).flat();
  r.d_w1 = to_ex(ffn.linear1.weight.grad);
  r.d_b1 = to_ex(ffn.linear1.bias.grad);
  r.d_w2 = to_ex(ffn.linear2.weight.grad);
  r.d_b2 = to_ex(ffn.linear2.bias.grad);
  return r;
}

Result learner(const Ffn& f) {
  Result r;
  r.y = ffn_forward(f.x, f.w1, f.b1, f.w2, f.b2);
  ffn_backward(f.x, f.w1, f.b1, f.w2, f.d_y, r.d_x, r.d_w1, r.d_b1, r.d_w2, r.d_b2);
  return r;
}

const char* const kReluHint =
    "through the ReLU, d_a = d_hidden where a = x W1ᵀ + b1 > 0 and 0 elsewhere (test the "
    "input a, not the gradient); d_hidden = d_y W2.";

}  // namespace

int main() {
  Report report("ffn_backward", "ex::ffn_forward(x, w1, b1, w2, b2) and ex::ffn_backward(...)");
  struct Size {
    std::size_t N, d_model, d_ff;
  };
  unsigned seed = 80;
  for (const Size& s : std::vector<Size>{{1, 2, 3}, {4, 6, 10}, {10, 8, 32}}) {
    const std::string size = "N " + std::to_string(s.N) + ", d_model " + std::to_string(s.d_model) +
                             ", d_ff " + std::to_string(s.d_ff);
    const Ffn f = random_ffn(s.N, s.d_model, s.d_ff, seed += 10);
    const Result want = library(f);
    report.check(
        "forward y against the library's FeedForward, " + size,
        [&] {
          return compare("y", want.y, ffn_forward(f.x, f.w1, f.b1, f.w2, f.b2), 1e-5f, 1e-4f);
        },
        "y = max(0, x W1ᵀ + b1) W2ᵀ + b2, with W [out, in]: y[n, o] = sum_f hidden[n, f] * W2[o, "
        "f] + b2[o].");
    report.check(
        "backward against the library, " + size + ": d_x, d_w1, d_b1, d_w2, d_b2",
        [&] {
          const Result got = learner(f);
          for (auto [name, expected, actual] :
               {std::tuple<const char*, const Tensor*, const Tensor*>{"d_w2", &want.d_w2,
                                                                      &got.d_w2},
                {"d_b2", &want.d_b2, &got.d_b2},
                {"d_w1", &want.d_w1, &got.d_w1},
                {"d_b1", &want.d_b1, &got.d_b1},
                {"d_x", &want.d_x, &got.d_x}}) {
            std::string problem = compare(name, *expected, *actual, 1e-5f, 1e-4f);
            if (!problem.empty()) return problem;
          }
          return std::string();
        },
        std::string("d_w2 = d_yᵀ hidden, d_b2 = sum over rows of d_y; ") + kReluHint +
            " Then d_w1 = d_aᵀ x, d_b1 = sum over rows of d_a, d_x = d_a W1.");
  }
  Ffn f = random_ffn(3, 4, 6, 200);
  const auto loss = [&] { return dot(library(f).y, f.d_y); };
  const Result got = learner(f);
  report.check(
      "finite differences of d_x (L = sum(y * d_y))",
      [&] { return finite_differences("d_x", f.x, got.d_x, loss); }, kReluHint);
  report.check(
      "finite differences of d_w1",
      [&] { return finite_differences("d_w1", f.w1, got.d_w1, loss); }, kReluHint);
  report.check(
      "finite differences of d_b1",
      [&] { return finite_differences("d_b1", f.b1, got.d_b1, loss); }, kReluHint);
  report.check(
      "finite differences of d_w2",
      [&] { return finite_differences("d_w2", f.w2, got.d_w2, loss); },
      "d_w2[o, f] = sum_n d_y[n, o] * hidden[n, f], hidden after the ReLU.");
  report.check(
      "finite differences of d_b2",
      [&] { return finite_differences("d_b2", f.b2, got.d_b2, loss); },
      "d_b2 sums d_y over the rows.");
  return report.finish();
}
