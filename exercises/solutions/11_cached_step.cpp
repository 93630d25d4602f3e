// Solution of the exercise cached_step (chapter 11). Try the exercise first.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "exercise/tensor.hpp"

namespace ex {

namespace {

Tensor times(const Tensor& w, const Tensor& h) {
  Tensor out({w.dim(0)});
  for (std::size_t i = 0; i < w.dim(0); ++i)
    for (std::size_t c = 0; c < w.dim(1); ++c) out(i) += w(i, c) * h(c);
  return out;
}

}  // namespace

Tensor cached_step(const Tensor& x_t, std::size_t t, const Tensor& pe, const Tensor& w_q,
                   const Tensor& w_k, const Tensor& w_v, std::vector<Tensor>& keys,
                   std::vector<Tensor>& values) {
  const std::size_t d = x_t.dim(0);
  Tensor h({d});
  for (std::size_t c = 0; c < d; ++c) h(c) = x_t(c) + pe(t, c);  // position t, not 0
  const Tensor q = times(w_q, h);
  keys.push_back(times(w_k, h));
  values.push_back(times(w_v, h));
  std::vector<float> a(keys.size());
  float row_max = -INFINITY, sum = 0.0f;
  for (std::size_t j = 0; j < keys.size(); ++j) {
    for (std::size_t c = 0; c < d; ++c) a[j] += q(c) * keys[j](c);
    a[j] /= std::sqrt(float(d));
    row_max = std::max(row_max, a[j]);
  }
  for (float& s : a) sum += (s = std::exp(s - row_max));
  Tensor out({d});
  for (std::size_t j = 0; j < keys.size(); ++j)
    for (std::size_t c = 0; c < d; ++c) out(c) += a[j] / sum * values[j](c);
  return out;
}

}  // namespace ex
