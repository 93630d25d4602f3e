// Checks of the exercise layer_norm_backward (chapter 08).
#include <cmath>

#include "convert.hpp"
#include "report.hpp"
#include "tfm/layers/layer_norm.hpp"

namespace ex {
Tensor layer_norm_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, float eps);
void layer_norm_backward(const Tensor& x, const Tensor& weight, const Tensor& grad_y, float eps,
                         Tensor& grad_x, Tensor& grad_weight, Tensor& grad_bias);
}  // namespace ex

using namespace ex;
using namespace ex::check;

namespace {

constexpr float kEps = 1e-5f;

struct Result {
  Tensor y, grad_x, grad_weight, grad_bias;
};

Result library(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& grad_y) {
  tfm::LayerNorm norm(x.dim(1), kEps);
  norm.weight.value = to_xt<1>(weight);
  norm.bias.value = to_xt<1>(bias);
  Tensor x3({1, x.dim(0), x.dim(1)}), grad_y3({1, x.dim(0), x.dim(1)});
  x3.flat() = x.flat();
  grad_y3.flat() = grad_y.flat();
  Result r{Tensor(x.shape()), Tensor(x.shape()), {}, {}};
  r.y.flat() = to_ex(norm.forward(to_xt<3>(x3))).flat();
  r.grad_x.flat() = to_ex(norm.backward(to_xt<3>(grad_y3))).flat();
  r.grad_weight = to_ex(norm.weight.grad);
  r.grad_bias = to_ex(norm.bias.grad);
  return r;
}

// grad_x without the terms that come from the mean and the variance: grad_y * weight / sqrt(var + eps).
Tensor grad_x_without_statistics(const Tensor& x, const Tensor& weight, const Tensor& grad_y) {
  Tensor out(x.shape());
  for (std::size_t n = 0; n < x.dim(0); ++n) {
    double mean = 0, var = 0;
    for (std::size_t c = 0; c < x.dim(1); ++c) mean += x(n, c);
    mean /= double(x.dim(1));
    for (std::size_t c = 0; c < x.dim(1); ++c) var += (x(n, c) - mean) * (x(n, c) - mean);
    var /= double(x.dim(1));
    for (std::size_t c = 0; c < x.dim(1); ++c)
      out(n, c) = float(grad_y(n, c) * weight(c) / std::sqrt(var + kEps));
  }
  return out;
}

const char* const kHint =
    "with g = grad_y * weight: grad_x = (g - mean(g) - x_hat * mean(g * x_hat)) / sqrt(var + eps), "
    "means over the row's d entries. The two mean terms are the gradients through mu and var.";

}  // namespace

int main() {
  Report report("layer_norm_backward",
                "ex::layer_norm_forward(x, weight, bias, eps) and ex::layer_norm_backward(...)");
  unsigned seed = 300;
  for (auto [N, d] : std::vector<std::pair<std::size_t, std::size_t>>{{1, 2}, {4, 8}, {12, 32}}) {
    const std::string size = "x [" + std::to_string(N) + ", " + std::to_string(d) + "]";
    const Tensor x = random_tensor({N, d}, seed += 10, -3.0f, 3.0f);
    const Tensor weight = random_tensor({d}, seed + 1, 0.5f, 1.5f),
                 bias = random_tensor({d}, seed + 2);
    const Tensor grad_y = random_tensor({N, d}, seed + 3);
    const Result want = library(x, weight, bias, grad_y);
    report.check(
        "forward y against the library's LayerNorm, " + size,
        [&] {
          return compare("y", want.y, layer_norm_forward(x, weight, bias, kEps), 1e-5f, 1e-4f);
        },
        "var divides by d (biased, as PyTorch), eps goes inside the square root.");
    report.check(
        "backward against the library, " + size + ": grad_weight, grad_bias, grad_x",
        [&] {
          Result got;
          layer_norm_backward(x, weight, grad_y, kEps, got.grad_x, got.grad_weight, got.grad_bias);
          std::string problem =
              compare("grad_weight", want.grad_weight, got.grad_weight, 1e-5f, 1e-4f);
          if (problem.empty())
            problem = compare("grad_bias", want.grad_bias, got.grad_bias, 1e-5f, 1e-4f);
          if (problem.empty())
            problem =
                compare("grad_x", want.grad_x, got.grad_x,
                        {{"grad_y * weight / sqrt(var + eps): the gradients through the mean and "
                          "the variance are missing",
                          grad_x_without_statistics(x, weight, grad_y)}},
                        1e-5f, 1e-3f);
          return problem;
        },
        std::string("grad_weight = sum over rows of grad_y * x_hat, grad_bias = sum over rows of "
                    "grad_y; ") +
            kHint);
  }
  Tensor x = random_tensor({3, 6}, 400, -2.0f, 2.0f);
  Tensor weight = random_tensor({6}, 401, 0.5f, 1.5f), bias = random_tensor({6}, 402);
  const Tensor grad_y = random_tensor({3, 6}, 403);
  const auto loss = [&] { return dot(library(x, weight, bias, grad_y).y, grad_y); };
  Result got;
  layer_norm_backward(x, weight, grad_y, kEps, got.grad_x, got.grad_weight, got.grad_bias);
  report.check(
      "finite differences of grad_x (L = sum(y * grad_y))",
      [&] { return finite_differences("grad_x", x, got.grad_x, loss); }, kHint);
  report.check(
      "finite differences of grad_weight",
      [&] { return finite_differences("grad_weight", weight, got.grad_weight, loss); },
      "grad_weight[c] = sum_n grad_y[n, c] * x_hat[n, c].");
  report.check(
      "finite differences of grad_bias",
      [&] { return finite_differences("grad_bias", bias, got.grad_bias, loss); },
      "grad_bias[c] = sum_n grad_y[n, c].");
  report.check(
      "PyTorch's gradients (tests/fixtures/layer_norm/basic_*.npy)",
      [&] {
        Result r;
        const Tensor fx = as_rows(load_fixture("layer_norm/basic_x"));
        layer_norm_backward(fx, load_fixture("layer_norm/basic_weight"),
                            as_rows(load_fixture("layer_norm/basic_grad_y")), kEps, r.grad_x,
                            r.grad_weight, r.grad_bias);
        std::string problem = compare("grad_x", as_rows(load_fixture("layer_norm/basic_grad_x")),
                                      r.grad_x, 1e-5f, 1e-3f);
        if (problem.empty())
          problem = compare("grad_weight", load_fixture("layer_norm/basic_grad_weight"),
                            r.grad_weight, 1e-5f, 1e-3f);
        return problem;
      },
      kHint);
  return report.finish();
}
