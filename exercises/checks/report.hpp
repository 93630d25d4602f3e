/// \file report.hpp
/// \brief What an exercise's checker prints: each check passed or failed, the first wrong entry
/// (index, expected, got), and a hint aimed at the usual mistake.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "exercise/tensor.hpp"

namespace ex::check {

/// The checks of one exercise, printed as they run; finish() gives the exit status.
class Report {
 public:
  /// `exercise` as `./tutorial exercise` names it, `learner_function` the function under test.
  Report(std::string exercise, std::string learner_function);

  /// Runs `body`, which returns "" when the check passed or what went wrong otherwise; prints
  /// "[passed] name" or "[FAILED] name", what went wrong and `hint`. An exception thrown by the
  /// learner's code (an index out of range, ...) fails the check with its message.
  bool check(const std::string& name, const std::function<std::string()>& body,
             const std::string& hint);

  /// Prints the summary line; returns the process's exit status (0: every check passed).
  int finish() const;

 private:
  std::string exercise_, learner_function_;
  std::size_t passed_ = 0, failed_ = 0;
};

/// "" if `got` has `expected`'s shape and every entry within atol + rtol * |expected|; otherwise
/// the shape mismatch, or the first wrong entry with its index, both values, and how many are
/// wrong. `what` names the output (e.g. "grad_x"). An empty `got` is called not written yet.
std::string compare(const std::string& what, const Tensor& expected, const Tensor& got,
                    float atol = 1e-5f, float rtol = 1e-4f);
/// A known mistake: what it is called and what it computes on the check's inputs.
struct Mistake {
  std::string description;  ///< e.g. "softmax(Q Kᵀ) V without the 1/sqrt(d_k) scale"
  Tensor result;
};
/// compare(), and when `got` is wrong but equals one of `mistakes`, the problem says which.
std::string compare(const std::string& what, const Tensor& expected, const Tensor& got,
                    const std::vector<Mistake>& mistakes, float atol = 1e-5f, float rtol = 1e-4f);
/// The same for integer tensors (masks, ids): exact.
std::string compare(const std::string& what, const Mask& expected, const Mask& got);

/// The central difference of `loss` in every `stride`-th entry of `input` against `analytic`
/// (dloss/dinput as the learner's backward gave it): "" or the worst entry, with both values.
std::string finite_differences(const std::string& what, Tensor& input, const Tensor& analytic,
                               const std::function<double()>& loss, float eps = 1e-3f,
                               double tolerance = 2e-2);

/// A tensor of the given shape with entries uniform in [low, high), from a fixed seed.
Tensor random_tensor(const std::vector<std::size_t>& shape, unsigned seed, float low = -1.0f,
                     float high = 1.0f);

/// The same entries as a matrix `[product of the other extents, last extent]`: a `[B, L, d]`
/// fixture as the `[N, d]` rows an exercise takes.
Tensor as_rows(const Tensor& x);

/// sum(a * b) in double: the scalar loss whose gradient with respect to a is b.
double dot(const Tensor& a, const Tensor& b);

/// "[2, 5, 512]".
std::string shape_text(const std::vector<std::size_t>& shape);

}  // namespace ex::check
