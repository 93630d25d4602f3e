#include "tfm/train/cross_entropy.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "tfm/core/trace.hpp"
#include "tfm/engine/profile.hpp"

namespace tfm {

namespace {
constexpr trace::Component traced("CrossEntropy");
}  // namespace

CrossEntropy::CrossEntropy(std::int32_t ignore_id, float label_smoothing)
    : ignore_id_(ignore_id), smoothing_(label_smoothing) {
  require(label_smoothing >= 0.0f && label_smoothing <= 1.0f, "CrossEntropy",
          "label_smoothing must lie in [0, 1], got " + std::to_string(label_smoothing));
}

// [cross entropy forward]
float CrossEntropy::forward(const Tensor3& logits, const TokenIds& targets) {
  const profile::Scope timed("cross-entropy forward");
  // logits: [B, T, V], targets: [B, T]  ->  loss: [] (a scalar)
  require_shape("CrossEntropy", "logits", logits, {kAnyExtent, kAnyExtent, kAnyExtent},
                "(batch, len, vocab)");
  const std::size_t batch = logits.shape(0), len = logits.shape(1), vocab = logits.shape(2);
  require(vocab > 0, "CrossEntropy", "logits have an empty vocabulary axis");
  require_shape("CrossEntropy", "targets", targets, {batch, len}, "(batch, len)");
  // Check every target before computing anything: a bad id is a data bug, report where it is.
  for (std::size_t i = 0; i < batch * len; ++i) {
    const std::int32_t t = targets.data()[i];
    if (t == ignore_id_) continue;
    require(t >= 0 && static_cast<std::size_t>(t) < vocab, "CrossEntropy",
            "target id " + std::to_string(t) + " at [" + std::to_string(i / len) + ", " +
                std::to_string(i % len) + "] is outside the vocabulary [0, " +
                std::to_string(vocab) + ")");
  }

  probs_.resize(logits.shape());  // reuses the cache while the shape stays the same
  targets_ = targets;
  counted_ = 0;
  has_forward_ = true;
  const double smoothing = smoothing_;
  // Rows are independent: shared out among the threads, each row's arithmetic the same as on one
  // thread, and the row losses summed afterwards in row order, so that the loss and the gradient
  // are the same bits on any number of threads. (With a vocabulary of thousands of subwords this
  // loop is a large part of a step.)
  const long rows = static_cast<long>(batch * len);
  std::vector<double> row_loss(batch * len, 0.0);
  std::vector<unsigned char> row_counted(batch * len, 0);
#pragma omp parallel for if (batch * len * vocab > (1 << 16))
  for (long row = 0; row < rows; ++row) {
    const auto i = static_cast<std::size_t>(row);
    const float* z = logits.data() + i * vocab;
    float* p = probs_.data() + i * vocab;
    // log-sum-exp with the row maximum taken out: every exponent is <= 0, nothing overflows,
    // and log p_j = z_j - (max + log Σ e^(z_k - max)) never takes the log of a rounded-to-0 p.
    const float max = *std::max_element(z, z + vocab);
    double sum_exp = 0.0, sum_z = 0.0;
    for (std::size_t j = 0; j < vocab; ++j) {
      p[j] = std::exp(z[j] - max);
      sum_exp += p[j];
      sum_z += z[j];
    }
    const double log_norm = max + std::log(sum_exp);  // log Σ_k e^(z_k)
    const float inv = static_cast<float>(1.0 / sum_exp);
    for (std::size_t j = 0; j < vocab; ++j) p[j] *= inv;

    const std::int32_t t = targets.data()[i];
    if (t == ignore_id_) continue;
    // -Σ_j q_j log p_j = (1-ε)(-log p_t) + (ε/V) Σ_j (-log p_j), and Σ_j log p_j = Σ z - V log_norm.
    const double nll = log_norm - z[t];
    const double uniform = log_norm - sum_z / static_cast<double>(vocab);
    row_loss[i] = (1.0 - smoothing) * nll + smoothing * uniform;
    row_counted[i] = 1;
  }
  double total = 0.0;  // the sum over counted positions, before the mean
  for (std::size_t i = 0; i < row_loss.size(); ++i) {
    if (!row_counted[i]) continue;
    total += row_loss[i];
    ++counted_;
  }
  const float loss =
      counted_ > 0 ? static_cast<float>(total / static_cast<double>(counted_)) : 0.0f;
  traced(logits, "softmax over the vocabulary", "logits", "batch, len, vocab");
  if (trace::enabled())
    trace::write_step("CrossEntropy", "mean over non-pad tokens", "loss", "[]", "scalar");
  return loss;
}
// [cross entropy forward]

// [cross entropy backward]
Tensor3 CrossEntropy::backward() const {
  const profile::Scope timed("cross-entropy backward");
  // -> dlogits: [B, T, V]
  require(has_forward_, "CrossEntropy backward", "called before forward");
  Tensor3 grad_logits = xt::zeros<float>(probs_.shape());
  if (counted_ == 0) return grad_logits;  // nothing counted: the loss is the constant 0
  const std::size_t vocab = probs_.shape(2), rows = probs_.shape(0) * probs_.shape(1);
  // The softmax and the log cancel: d(-Σ q_j log p_j)/dz_j = p_j - q_j. The mean divides by n.
  const float inv_n = 1.0f / static_cast<float>(counted_);
  const float off_target = smoothing_ / static_cast<float>(vocab);  // q_j for j != t
  const float on_target = 1.0f - smoothing_ + off_target;           // q_t
#pragma omp parallel for if (rows * vocab > (1 << 16))
  for (std::size_t i = 0; i < rows; ++i) {
    const std::int32_t t = targets_.data()[i];
    if (t == ignore_id_) continue;  // ignored rows stay 0
    const float* p = probs_.data() + i * vocab;
    float* d = grad_logits.data() + i * vocab;
    for (std::size_t j = 0; j < vocab; ++j) d[j] = (p[j] - off_target) * inv_n;
    d[t] = (p[t] - on_target) * inv_n;
  }
  return traced(std::move(grad_logits), "backward (p - q) / counted tokens", "grad_logits",
                "batch, len, vocab");
}
// [cross entropy backward]

}  // namespace tfm
