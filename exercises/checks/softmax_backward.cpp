// Checks of the exercise softmax_backward (chapter 05).
#include "convert.hpp"
#include "report.hpp"
#include "tfm/layers/softmax.hpp"

namespace ex {
Tensor softmax_backward(const Tensor& y, const Tensor& grad_y);
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

Tensor library_backward(const Tensor& y, const Tensor& grad_y) {
  Tensor grad_x(y.shape());
  tfm::softmax_rows_backward(y.flat().data(), grad_y.flat().data(), grad_x.flat().data(), y.dim(0),
                             y.dim(1));
  return grad_x;
}

const char* const kRowSumHint =
    "every entry of a row depends on every other: grad_x_i = y_i * (grad_y_i - sum_j grad_y_j * "
    "y_j). "
    "Without the row sum (grad_x = y * grad_y) only the diagonal of the Jacobian is used.";

}  // namespace

int main() {
  Report report("softmax_backward", "ex::softmax_backward(y, grad_y)");
  const std::vector<std::vector<std::size_t>> sizes = {{1, 4}, {3, 5}, {8, 17}};
  report.check(
      "shape: grad_x has the shape of y, [rows, cols]",
      [&] {
        const Tensor y = softmax(random_tensor({3, 5}, 1)), grad_y = random_tensor({3, 5}, 2);
        const Tensor got = softmax_backward(y, grad_y);
        if (got.shape() == y.shape()) return std::string();
        return compare("grad_x", library_backward(y, grad_y), got);
      },
      "create the result as Tensor grad_x(y.shape()) and return it.");
  for (const auto& shape : sizes) {
    report.check(
        "values against the library's softmax_rows_backward, " + shape_text(shape),
        [&] {
          const Tensor y = softmax(random_tensor(shape, 3, -2.0f, 2.0f));
          const Tensor grad_y = random_tensor(shape, 4);
          return compare("grad_x", library_backward(y, grad_y), softmax_backward(y, grad_y));
        },
        kRowSumHint);
  }
  report.check(
      "finite differences: grad_x against (L(x + eps) - L(x - eps)) / 2 eps, L = sum(softmax(x) * "
      "grad_y)",
      [&] {
        Tensor x = random_tensor({4, 6}, 5, -2.0f, 2.0f);
        const Tensor grad_y = random_tensor({4, 6}, 6);
        const Tensor grad_x = softmax_backward(softmax(x), grad_y);
        return finite_differences("grad_x", x, grad_x, [&] { return dot(softmax(x), grad_y); });
      },
      kRowSumHint);
  report.check(
      "PyTorch's gradient (tests/fixtures/attention/softmax_*.npy)",
      [&] {
        const Tensor y = load_fixture("attention/softmax_y");
        const Tensor grad_y = load_fixture("attention/softmax_grad_y");
        return compare("grad_x", load_fixture("attention/softmax_grad_x"),
                       softmax_backward(y, grad_y), 1e-5f, 1e-3f);
      },
      kRowSumHint);
  report.check(
      "a row whose upstream gradient is constant gets grad_x = 0 (softmax ignores a shift)",
      [&] {
        const Tensor y = softmax(random_tensor({2, 5}, 7));
        Tensor grad_y({2, 5});
        for (float& v : grad_y.flat()) v = 0.5f;
        return compare("grad_x", Tensor({2, 5}), softmax_backward(y, grad_y), 1e-6f, 0.0f);
      },
      "adding c to every grad_y of a row must change nothing: that is the row sum's job.");
  return report.finish();
}
