// Checks of the exercise layer_norm_backward (chapter 08).
#include <cmath>

#include "convert.hpp"
#include "report.hpp"
#include "tfm/layers/layer_norm.hpp"

namespace ex {
Tensor layer_norm_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, float eps);
void layer_norm_backward(const Tensor& x, const Tensor& weight, const Tensor& d_y, float eps,
                         Tensor& d_x, Tensor& d_weight, Tensor& d_bias);
}  // namespace ex

using namespace ex;
using namespace ex::check;

namespace {

constexpr float kEps = 1e-5f;

struct Result {
  Tensor y, d_x, d_weight, d_bias;
};

Result library(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& d_y) {
  tfm::LayerNorm norm(x.dim(1), kEps);
  norm.weight.value = to_xt<1>(weight);
  norm.bias.value = to_xt<1>(bias);
  Tensor x3({1, x.dim(0), x.dim(1)}), d_y3({1, x.dim(0), x.dim(1)});
  x3.flat() = x.flat();
  d_y3.flat() = d_y.flat();
  Result r{Tensor(x.shape()), Tensor(x.shape()), {}, {}};
  r.y.flat() = to_ex(norm.forward(to_xt<3>(x3))).flat();
  r.d_x.flat() = to_ex(norm.backward(to_xt<3>(d_y3))).flat();
  r.d_weight = to_ex(norm.weight.grad);
  r.d_bias = to_ex(norm.bias.grad);
  return r;
}

// d_x without the terms that come from the mean and the variance: d_y * weight / sqrt(var + eps).
Tensor d_x_without_statistics(const Tensor& x, const Tensor& weight, const Tensor& d_y) {
  Tensor out(x.shape());
  for (std::size_t n = 0; n < x.dim(0); ++n) {
    double mean = 0, var = 0;
    for (std::size_t c = 0; c < x.dim(1); ++c) mean += x(n, c);
    mean /= double(x.dim(1));
    for (std::size_t c = 0; c < x.dim(1); ++c) var += (x(n, c) - mean) * (x(n, c) - mean);
    var /= double(x.dim(1));
    for (std::size_t c = 0; c < x.dim(1); ++c)
      out(n, c) = float(d_y(n, c) * weight(c) / std::sqrt(var + kEps));
  }
  return out;
}

const char* const kHint =
    "with g = d_y * weight: d_x = (g - mean(g) - x_hat * mean(g * x_hat)) / sqrt(var + eps), "
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
    const Tensor d_y = random_tensor({N, d}, seed + 3);
    const Result want = library(x, weight, bias, d_y);
    report.check(
        "forward y against the library's LayerNorm, " + size,
        [&] {
          return compare("y", want.y, layer_norm_forward(x, weight, bias, kEps), 1e-5f, 1e-4f);
        },
        "var divides by d (biased, as PyTorch), eps goes inside the square root.");
    report.check(
        "backward against the library, " + size + ": d_weight, d_bias, d_x",
        [&] {
          Result got;
          layer_norm_backward(x, weight, d_y, kEps, got.d_x, got.d_weight, got.d_bias);
          std::string problem = compare("d_weight", want.d_weight, got.d_weight, 1e-5f, 1e-4f);
          if (problem.empty()) problem = compare("d_bias", want.d_bias, got.d_bias, 1e-5f, 1e-4f);
          if (problem.empty())
            problem =
                compare("d_x", want.d_x, got.d_x,
                        {{"d_y * weight / sqrt(var + eps): the gradients through the mean and "
                          "the variance are missing",
                          d_x_without_statistics(x, weight, d_y)}},
                        1e-5f, 1e-3f);
          return problem;
        },
        std::string("d_weight = sum over rows of d_y * x_hat, d_bias = sum over rows of d_y; ") +
            kHint);
  }
  Tensor x = random_tensor({3, 6}, 400, -2.0f, 2.0f);
  Tensor weight = random_tensor({6}, 401, 0.5f, 1.5f), bias = random_tensor({6}, 402);
  const Tensor d_y = random_tensor({3, 6}, 403);
  const auto loss = [&] { return dot(library(x, weight, bias, d_y).y, d_y); };
  Result got;
  layer_norm_backward(x, weight, d_y, kEps, got.d_x, got.d_weight, got.d_bias);
  report.check(
      "finite differences of d_x (L = sum(y * d_y))",
      [&] { return finite_differences("d_x", x, got.d_x, loss); }, kHint);
  report.check(
      "finite differences of d_weight",
      [&] { return finite_differences("d_weight", weight, got.d_weight, loss); },
      "d_weight[c] = sum_n d_y[n, c] * x_hat[n, c].");
  report.check(
      "finite differences of d_bias",
      [&] { return finite_differences("d_bias", bias, got.d_bias, loss); },
      "d_bias[c] = sum_n d_y[n, c].");
  report.check(
      "PyTorch's gradients (tests/fixtures/layer_norm/basic_*.npy)",
      [&] {
        Result r;
        const Tensor fx = as_rows(load_fixture("layer_norm/basic_x"));
        layer_norm_backward(fx, load_fixture("layer_norm/basic_weight"),
                            as_rows(load_fixture("layer_norm/basic_dy")), kEps, r.d_x, r.d_weight,
                            r.d_bias);
        std::string problem =
            compare("d_x", as_rows(load_fixture("layer_norm/basic_dx")), r.d_x, 1e-5f, 1e-3f);
        if (problem.empty())
          problem = compare("d_weight", load_fixture("layer_norm/basic_dweight"), r.d_weight, 1e-5f,
                            1e-3f);
        return problem;
      },
      kHint);
  return report.finish();
}
