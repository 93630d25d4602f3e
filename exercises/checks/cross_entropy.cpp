// Checks of the exercise cross_entropy (chapter 11).
#include "tfm/train/cross_entropy.hpp"

#include <cmath>

#include "convert.hpp"
#include "report.hpp"

namespace ex {
float cross_entropy(const Tensor& logits, const Ids& targets, std::int32_t ignore_id,
                    float smoothing, Tensor& grad_logits);
}

using namespace ex;
using namespace ex::check;

namespace {

// The library's loss and gradient on [N, V] logits, as its [1, N, V].
float library(const Tensor& logits, const Ids& targets, float smoothing, Tensor& grad_logits) {
  tfm::CrossEntropy loss(0, smoothing);
  Tensor batch({1, logits.dim(0), logits.dim(1)});
  batch.flat() = logits.flat();
  Ids batch_targets({1, targets.dim(0)});
  batch_targets.flat() = targets.flat();
  const float value = loss.forward(to_xt<3>(batch), to_xt<2>(batch_targets));
  grad_logits = Tensor(logits.shape());
  grad_logits.flat() = to_ex(loss.backward()).flat();
  return value;
}

std::string compare_loss(float expected, float got) {
  if (std::abs(expected - got) <= 1e-5f + 1e-4f * std::abs(expected)) return "";
  return "loss: expected " + std::to_string(expected) + ", got " + std::to_string(got);
}

Ids targets_for(std::size_t N, std::size_t V, bool with_padding, unsigned seed) {
  Ids t({N});
  for (std::size_t n = 0; n < N; ++n) t(n) = std::int32_t(1 + (n * 7 + seed) % (V - 1));
  if (with_padding) t(N - 1) = 0, t(N / 2) = 0;
  return t;
}

const char* const kLossHint =
    "the mean is over the counted rows (target != ignore_id), not over all N; with smoothing "
    "every class gets smoothing / V, the target 1 - smoothing on top.";
const char* const kGradHint =
    "grad_logits[n, j] = (p_j - q_j) / counted on counted rows, 0 on ignored rows: softmax minus "
    "the smoothed target, divided by the number of counted rows.";

}  // namespace

int main() {
  Report report("cross_entropy",
                "ex::cross_entropy(logits, targets, ignore_id, smoothing, grad_logits)");
  struct Case {
    std::size_t N, V;
    bool padding;
    float smoothing;
  };
  unsigned seed = 700;
  for (const Case& c : std::vector<Case>{
           {1, 3, false, 0.0f}, {5, 7, true, 0.0f}, {6, 11, true, 0.1f}, {12, 40, false, 0.3f}}) {
    const std::string size = "logits [" + std::to_string(c.N) + ", " + std::to_string(c.V) + "]" +
                             (c.padding ? ", two rows of padding" : "") + ", smoothing " +
                             std::to_string(c.smoothing).substr(0, 3);
    const Tensor logits = random_tensor({c.N, c.V}, seed += 10, -4.0f, 4.0f);
    const Ids targets = targets_for(c.N, c.V, c.padding, seed);
    Tensor want_d;
    const float want = library(logits, targets, c.smoothing, want_d);
    report.check(
        "loss against the library's CrossEntropy, " + size,
        [&] {
          Tensor d;
          return compare_loss(want, cross_entropy(logits, targets, 0, c.smoothing, d));
        },
        kLossHint);
    report.check(
        "grad_logits against the library, " + size,
        [&] {
          Tensor d;
          cross_entropy(logits, targets, 0, c.smoothing, d);
          return compare("grad_logits", want_d, d, 1e-6f, 1e-4f);
        },
        kGradHint);
  }
  report.check(
      "large logits (1000 and more) give a finite loss",
      [&] {
        Tensor logits = random_tensor({3, 5}, 800, 1000.0f, 1010.0f), d;
        const Ids targets = targets_for(3, 5, false, 1);
        Tensor want_d;
        const float want = library(logits, targets, 0.1f, want_d);
        const float got = cross_entropy(logits, targets, 0, 0.1f, d);
        if (!std::isfinite(got)) return "loss is " + std::to_string(got) + " for logits near 1000";
        return compare_loss(want, got);
      },
      "subtract the row's maximum before exp (log-sum-exp): exp(1000) overflows a float.");
  report.check(
      "finite differences of grad_logits (smoothing 0.1, with padding)",
      [&] {
        Tensor logits = random_tensor({4, 6}, 810, -2.0f, 2.0f), d;
        const Ids targets = targets_for(4, 6, true, 3);
        cross_entropy(logits, targets, 0, 0.1f, d);
        return finite_differences("grad_logits", logits, d, [&] {
          Tensor unused;
          return double(library(logits, targets, 0.1f, unused));
        });
      },
      kGradHint);
  report.check(
      "PyTorch's loss and gradient (tests/fixtures/cross_entropy/smoothed_*.npy, smoothing 0.1)",
      [&] {
        const Tensor logits = as_rows(load_fixture("cross_entropy/logits"));
        const Tensor float_targets = load_fixture("cross_entropy/targets");
        Ids targets({float_targets.size()});
        for (std::size_t n = 0; n < targets.size(); ++n)
          targets(n) = std::int32_t(float_targets.flat()[n]);
        Tensor d;
        const float got = cross_entropy(logits, targets, 0, 0.1f, d);
        std::string problem =
            compare_loss(load_fixture("cross_entropy/smoothed_loss").flat()[0], got);
        return problem.empty()
                   ? compare("grad_logits",
                             as_rows(load_fixture("cross_entropy/smoothed_grad_logits")), d, 1e-6f,
                             1e-3f)
                   : problem;
      },
      kLossHint);
  return report.finish();
}
