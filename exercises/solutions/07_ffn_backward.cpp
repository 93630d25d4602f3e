// Solution of the exercise ffn_backward (chapter 07). Try the exercise first.
#include "exercise/tensor.hpp"

namespace ex {

namespace {

// x W1ᵀ + b1, before the ReLU: [N, d_ff].
Tensor pre_activation(const Tensor& x, const Tensor& w1, const Tensor& b1) {
  Tensor a({x.dim(0), w1.dim(0)});
  for (std::size_t n = 0; n < x.dim(0); ++n)
    for (std::size_t f = 0; f < w1.dim(0); ++f) {
      float sum = b1(f);
      for (std::size_t c = 0; c < x.dim(1); ++c) sum += x(n, c) * w1(f, c);
      a(n, f) = sum;
    }
  return a;
}

}  // namespace

Tensor ffn_forward(const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& w2,
                   const Tensor& b2) {
  const Tensor a = pre_activation(x, w1, b1);
  Tensor y({x.dim(0), w2.dim(0)});
  for (std::size_t n = 0; n < x.dim(0); ++n)
    for (std::size_t o = 0; o < w2.dim(0); ++o) {
      float sum = b2(o);
      for (std::size_t f = 0; f < w2.dim(1); ++f) sum += (a(n, f) > 0 ? a(n, f) : 0.0f) * w2(o, f);
      y(n, o) = sum;
    }
  return y;
}

void ffn_backward(const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& w2,
                  const Tensor& grad_y, Tensor& grad_x, Tensor& grad_w1, Tensor& grad_b1,
                  Tensor& grad_w2, Tensor& grad_b2) {
  const std::size_t N = x.dim(0), d_model = x.dim(1), d_ff = w1.dim(0);
  const Tensor a = pre_activation(x, w1, b1);
  grad_x = Tensor(x.shape());
  grad_w1 = Tensor(w1.shape());
  grad_b1 = Tensor(b1.shape());
  grad_w2 = Tensor(w2.shape());
  grad_b2 = Tensor({d_model});
  for (std::size_t n = 0; n < N; ++n) {
    for (std::size_t o = 0; o < d_model; ++o) grad_b2(o) += grad_y(n, o);
    for (std::size_t f = 0; f < d_ff; ++f) {
      const float hidden = a(n, f) > 0 ? a(n, f) : 0.0f;
      float grad_hidden = 0.0f;
      for (std::size_t o = 0; o < d_model; ++o) {
        grad_w2(o, f) += grad_y(n, o) * hidden;
        grad_hidden += grad_y(n, o) * w2(o, f);
      }
      const float grad_a = a(n, f) > 0 ? grad_hidden : 0.0f;  // the ReLU's backward
      grad_b1(f) += grad_a;
      for (std::size_t c = 0; c < d_model; ++c) {
        grad_w1(f, c) += grad_a * x(n, c);
        grad_x(n, c) += grad_a * w1(f, c);
      }
    }
  }
}

}  // namespace ex
