// Finite-difference gradient checks shared by the component tests.
//
// The loss is L = sum(output * probe) with a fixed random probe, so dL/doutput = probe and
// backward(probe) must give dL/dparameter. Each parameter entry is nudged by ±eps and the central
// difference (L(p+eps) - L(p-eps)) / 2eps is compared with the analytic gradient.
#pragma once

#include <cmath>
#include <cstddef>
#include <functional>
#include <sstream>
#include <string>

namespace tfm::testing {

/// The worst disagreement found, and where.
struct GradientReport {
  double worst = 0.0;     ///< max |analytic - numeric| / (atol + |numeric|)
  std::size_t index = 0;  ///< entry with the worst disagreement
  double analytic = 0.0, numeric = 0.0;
  std::string describe(const std::string& name) const {
    std::ostringstream out;
    out << name << "[" << index << "]: analytic " << analytic << " vs numeric " << numeric
        << " (score " << worst << ")";
    return out.str();
  }
};

/// Compares `analytic[i]` with the central difference of `loss` in `values[i]`, for every i
/// (or every `stride`-th i, to keep large tensors fast). The score is
/// |analytic - numeric| / (atol + |numeric|); callers require it below a tolerance.
inline GradientReport check_gradient(float* values, const float* analytic, std::size_t n,
                                     const std::function<double()>& loss, float eps, double atol,
                                     std::size_t stride = 1) {
  GradientReport report;
  for (std::size_t i = 0; i < n; i += stride) {
    const float saved = values[i];
    values[i] = saved + eps;
    const double plus = loss();
    values[i] = saved - eps;
    const double minus = loss();
    values[i] = saved;
    const double numeric = (plus - minus) / (2.0 * static_cast<double>(eps));
    const double score = std::abs(analytic[i] - numeric) / (atol + std::abs(numeric));
    if (score > report.worst) report = {score, i, analytic[i], numeric};
  }
  return report;
}

/// sum(output * probe) in double precision: the scalar loss of the checks.
template <class A, class B>
double dot_loss(const A& output, const B& probe) {
  double sum = 0.0;
  auto p = probe.begin();
  for (auto v = output.begin(); v != output.end(); ++v, ++p) sum += double(*v) * double(*p);
  return sum;
}

}  // namespace tfm::testing
