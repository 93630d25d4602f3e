// Checks of the exercise ffn_backward (chapter 07).
#include "convert.hpp"
#include "report.hpp"
#include "tfm/core/random.hpp"
#include "tfm/layers/feed_forward.hpp"

namespace ex {
Tensor ffn_forward(const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& w2,
                   const Tensor& b2);
void ffn_backward(const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& w2,
                  const Tensor& grad_y, Tensor& grad_x, Tensor& grad_w1, Tensor& grad_b1,
                  Tensor& grad_w2, Tensor& grad_b2);
}  // namespace ex

using namespace ex;
using namespace ex::check;

namespace {

struct Ffn {
  Tensor x, w1, b1, w2, b2, grad_y;
};

// The result of one forward and backward of the network, by the library or by the learner.
struct Result {
  Tensor y, grad_x, grad_w1, grad_b1, grad_w2, grad_b2;
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
  Tensor x3({1, f.x.dim(0), f.x.dim(1)}), grad_y3({1, f.x.dim(0), f.x.dim(1)});
  x3.flat() = f.x.flat();
  grad_y3.flat() = f.grad_y.flat();
  Result r{Tensor(f.x.shape()), Tensor(f.x.shape()), {}, {}, {}, {}};
  r.y.flat() = to_ex(ffn.forward(to_xt<3>(x3))).flat();
  r.grad_x.flat() = to_ex(ffn.backward(to_xt<3>(grad_y3))).flat();
  r.grad_w1 = to_ex(ffn.linear1.weight.grad);
  r.grad_b1 = to_ex(ffn.linear1.bias.grad);
  r.grad_w2 = to_ex(ffn.linear2.weight.grad);
  r.grad_b2 = to_ex(ffn.linear2.bias.grad);
  return r;
}

Result learner(const Ffn& f) {
  Result r;
  r.y = ffn_forward(f.x, f.w1, f.b1, f.w2, f.b2);
  ffn_backward(f.x, f.w1, f.b1, f.w2, f.grad_y, r.grad_x, r.grad_w1, r.grad_b1, r.grad_w2,
               r.grad_b2);
  return r;
}

const char* const kReluHint =
    "through the ReLU, grad_a = grad_hidden where a = x W1ᵀ + b1 > 0 and 0 elsewhere (test the "
    "input a, not the gradient); grad_hidden = grad_y W2.";

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
        "backward against the library, " + size + ": grad_x, grad_w1, grad_b1, grad_w2, grad_b2",
        [&] {
          const Result got = learner(f);
          for (auto [name, expected, actual] :
               {std::tuple<const char*, const Tensor*, const Tensor*>{"grad_w2", &want.grad_w2,
                                                                      &got.grad_w2},
                {"grad_b2", &want.grad_b2, &got.grad_b2},
                {"grad_w1", &want.grad_w1, &got.grad_w1},
                {"grad_b1", &want.grad_b1, &got.grad_b1},
                {"grad_x", &want.grad_x, &got.grad_x}}) {
            std::string problem = compare(name, *expected, *actual, 1e-5f, 1e-4f);
            if (!problem.empty()) return problem;
          }
          return std::string();
        },
        std::string("grad_w2 = grad_yᵀ hidden, grad_b2 = sum over rows of grad_y; ") + kReluHint +
            " Then grad_w1 = grad_aᵀ x, grad_b1 = sum over rows of grad_a, grad_x = grad_a W1.");
  }
  Ffn f = random_ffn(3, 4, 6, 200);
  const auto loss = [&] { return dot(library(f).y, f.grad_y); };
  const Result got = learner(f);
  report.check(
      "finite differences of grad_x (L = sum(y * grad_y))",
      [&] { return finite_differences("grad_x", f.x, got.grad_x, loss); }, kReluHint);
  report.check(
      "finite differences of grad_w1",
      [&] { return finite_differences("grad_w1", f.w1, got.grad_w1, loss); }, kReluHint);
  report.check(
      "finite differences of grad_b1",
      [&] { return finite_differences("grad_b1", f.b1, got.grad_b1, loss); }, kReluHint);
  report.check(
      "finite differences of grad_w2",
      [&] { return finite_differences("grad_w2", f.w2, got.grad_w2, loss); },
      "grad_w2[o, f] = sum_n grad_y[n, o] * hidden[n, f], hidden after the ReLU.");
  report.check(
      "finite differences of grad_b2",
      [&] { return finite_differences("grad_b2", f.b2, got.grad_b2, loss); },
      "grad_b2 sums grad_y over the rows.");
  return report.finish();
}
