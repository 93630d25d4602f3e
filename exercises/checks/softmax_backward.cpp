// Checks of the exercise softmax_backward (chapter 05).
#include "convert.hpp"
#include "report.hpp"
#include "tfm/layers/softmax.hpp"

namespace ex {
Tensor softmax_backward(const Tensor& y, const Tensor& d_y);
}

using namespace ex;
using namespace ex::check;

namespace {

// The softmax of each row of x, by the library.
Tensor softmax(const Tensor& x) {
  Tensor y(x.shape());
  tfm::softmax_rows(x.flat().data(), y.flat().data(), x.dim(0), x.dim(1));
  return y;
}

Tensor library_backward(const Tensor& y, const Tensor& d_y) {
  Tensor d_x(y.shape());
  tfm::softmax_rows_backward(y.flat().data(), d_y.flat().data(), d_x.flat().data(), y.dim(0),
                             y.dim(1));
  return d_x;
}

const char* const kRowSumHint =
    "every entry of a row depends on every other: d_x_i = y_i * (d_y_i - sum_j d_y_j * y_j). "
    "Without the row sum (d_x = y * d_y) only the diagonal of the Jacobian is used.";

}  // namespace

int main() {
  Report report("softmax_backward", "ex::softmax_backward(y, d_y)");
  const std::vector<std::vector<std::size_t>> sizes = {{1, 4}, {3, 5}, {8, 17}};
  report.check(
      "shape: d_x has the shape of y, [rows, cols]",
      [&] {
        const Tensor y = softmax(random_tensor({3, 5}, 1)), d_y = random_tensor({3, 5}, 2);
        const Tensor got = softmax_backward(y, d_y);
        if (got.shape() == y.shape()) return std::string();
        return compare("d_x", library_backward(y, d_y), got);
      },
      "create the result as Tensor d_x(y.shape()) and return it.");
  for (const auto& shape : sizes) {
    report.check(
        "values against the library's softmax_rows_backward, " + shape_text(shape),
        [&] {
          const Tensor y = softmax(random_tensor(shape, 3, -2.0f, 2.0f));
          const Tensor d_y = random_tensor(shape, 4);
          return compare("d_x", library_backward(y, d_y), softmax_backward(y, d_y));
        },
        kRowSumHint);
  }
  report.check(
      "finite differences: d_x against (L(x + eps) - L(x - eps)) / 2 eps, L = sum(softmax(x) * "
      "d_y)",
      [&] {
        Tensor x = random_tensor({4, 6}, 5, -2.0f, 2.0f);
        const Tensor d_y = random_tensor({4, 6}, 6);
        const Tensor d_x = softmax_backward(softmax(x), d_y);
        return finite_differences("d_x", x, d_x, [&] { return dot(softmax(x), d_y); });
      },
      kRowSumHint);
  report.check(
      "PyTorch's gradient (tests/fixtures/attention/softmax_*.npy)",
      [&] {
        const Tensor y = load_fixture("attention/softmax_y");
        const Tensor d_y = load_fixture("attention/softmax_dy");
        return compare("d_x", load_fixture("attention/softmax_dx"), softmax_backward(y, d_y), 1e-5f,
                       1e-3f);
      },
      kRowSumHint);
  report.check(
      "a row whose upstream gradient is constant gets d_x = 0 (softmax ignores a shift)",
      [&] {
        const Tensor y = softmax(random_tensor({2, 5}, 7));
        Tensor d_y({2, 5});
        for (float& v : d_y.flat()) v = 0.5f;
        return compare("d_x", Tensor({2, 5}), softmax_backward(y, d_y), 1e-6f, 0.0f);
      },
      "adding c to every d_y of a row must change nothing: that is the row sum's job.");
  return report.finish();
}
