// Solution of the exercise cross_entropy (chapter 11). Try the exercise first.
#include <algorithm>
#include <cmath>

#include "exercise/tensor.hpp"

namespace ex {

float cross_entropy(const Tensor& logits, const Ids& targets, std::int32_t ignore_id,
                    float smoothing, Tensor& grad_logits) {
  const std::size_t N = logits.dim(0), V = logits.dim(1);
  grad_logits = Tensor(logits.shape());
  std::size_t counted = 0;
  for (std::size_t n = 0; n < N; ++n) counted += targets(n) != ignore_id;
  if (counted == 0) return 0.0f;
  double total = 0.0;
  for (std::size_t n = 0; n < N; ++n) {
    if (targets(n) == ignore_id) continue;
    float row_max = logits(n, 0);
    for (std::size_t j = 1; j < V; ++j) row_max = std::max(row_max, logits(n, j));
    double sum = 0.0;
    for (std::size_t j = 0; j < V; ++j) sum += std::exp(double(logits(n, j) - row_max));
    const double log_sum = std::log(sum) + row_max;
    for (std::size_t j = 0; j < V; ++j) {
      const double q = (1.0 - smoothing) * (j == std::size_t(targets(n))) + smoothing / double(V);
      const double log_p = logits(n, j) - log_sum;
      total -= q * log_p;
      // d(-sum_j q_j log p_j)/dz_j = p_j - q_j (q sums to 1), then the mean.
      grad_logits(n, j) = float((std::exp(log_p) - q) / double(counted));
    }
  }
  return float(total / double(counted));
}

}  // namespace ex
