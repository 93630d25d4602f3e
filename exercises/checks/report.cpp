// The checkers' printing and comparisons (see report.hpp).
#include "report.hpp"

#include <cmath>
#include <cstdio>
#include <exception>
#include <random>
#include <sstream>

namespace ex::check {

namespace {

// The flat index `at` of a tensor of `shape` as "[i, j, k]".
std::string index_text(std::size_t at, const std::vector<std::size_t>& shape) {
  std::vector<std::size_t> index(shape.size());
  for (std::size_t axis = shape.size(); axis-- > 0;) {
    index[axis] = at % shape[axis];
    at /= shape[axis];
  }
  return shape_text(index);
}

std::string number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", x);
  return text;
}

template <class T>
std::string shape_problem(const std::string& what, const Array<T>& expected, const Array<T>& got) {
  if (got.shape() == expected.shape()) return "";
  if (got.rank() == 0) {
    return what + " is empty (shape []): not written yet? It must have shape " +
           shape_text(expected.shape());
  }
  return what + " has shape " + shape_text(got.shape()) + ", expected " +
         shape_text(expected.shape());
}

}  // namespace

std::string shape_text(const std::vector<std::size_t>& shape) {
  std::string out = "[";
  for (std::size_t a = 0; a < shape.size(); ++a) out += (a ? ", " : "") + std::to_string(shape[a]);
  return out + "]";
}

Report::Report(std::string exercise, std::string learner_function)
    : exercise_(std::move(exercise)), learner_function_(std::move(learner_function)) {
  std::printf("exercise %s: checking %s\n", exercise_.c_str(), learner_function_.c_str());
}

bool Report::check(const std::string& name, const std::function<std::string()>& body,
                   const std::string& hint) {
  std::string problem;
  try {
    problem = body();
  } catch (const std::exception& error) {
    problem = std::string("your code threw: ") + error.what();
  }
  if (problem.empty()) {
    ++passed_;
    std::printf("  [passed] %s\n", name.c_str());
    return true;
  }
  ++failed_;
  std::printf("  [FAILED] %s\n           %s\n", name.c_str(), problem.c_str());
  const bool unwritten = problem.find("not written yet") != std::string::npos;
  if (!hint.empty() && !unwritten) std::printf("           look at: %s\n", hint.c_str());
  return false;
}

int Report::finish() const {
  if (failed_ == 0) {
    std::printf("exercise %s: all %zu checks passed\n", exercise_.c_str(), passed_);
    return 0;
  }
  std::printf("exercise %s: %zu of %zu checks failed\n", exercise_.c_str(), failed_,
              failed_ + passed_);
  return 1;
}

std::string compare(const std::string& what, const Tensor& expected, const Tensor& got, float atol,
                    float rtol) {
  std::string shape = shape_problem(what, expected, got);
  if (!shape.empty()) return shape;
  std::size_t wrong = 0, first = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const float e = expected.flat()[i], g = got.flat()[i];
    if (!(std::abs(e - g) <= atol + rtol * std::abs(e))) {  // NaN is wrong too
      if (wrong++ == 0) first = i;
    }
  }
  if (wrong == 0) return "";
  return what + " first wrong entry at " + index_text(first, got.shape()) + ": expected " +
         number(expected.flat()[first]) + ", got " + number(got.flat()[first]) + " (" +
         std::to_string(wrong) + " of " + std::to_string(got.size()) + " entries wrong)";
}

std::string compare(const std::string& what, const Tensor& expected, const Tensor& got,
                    const std::vector<Mistake>& mistakes, float atol, float rtol) {
  std::string problem = compare(what, expected, got, atol, rtol);
  if (problem.empty() || got.shape() != expected.shape()) return problem;
  for (const Mistake& mistake : mistakes) {
    if (compare(what, mistake.result, got, atol, rtol).empty()) {
      return problem + "\n           your result equals " + mistake.description;
    }
  }
  return problem;
}

std::string compare(const std::string& what, const Mask& expected, const Mask& got) {
  std::string shape = shape_problem(what, expected, got);
  if (!shape.empty()) return shape;
  std::size_t wrong = 0, first = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (expected.flat()[i] != got.flat()[i] && wrong++ == 0) first = i;
  }
  if (wrong == 0) return "";
  return what + " first wrong entry at " + index_text(first, got.shape()) + ": expected " +
         std::to_string(int(expected.flat()[first])) + ", got " +
         std::to_string(int(got.flat()[first])) + " (" + std::to_string(wrong) + " of " +
         std::to_string(got.size()) + " entries wrong)";
}

std::string finite_differences(const std::string& what, Tensor& input, const Tensor& analytic,
                               const std::function<double()>& loss, float eps, double tolerance) {
  std::string shape = shape_problem(what, input, analytic);
  if (!shape.empty()) return shape;
  const std::size_t stride = input.size() > 64 ? input.size() / 64 : 1;
  for (std::size_t i = 0; i < input.size(); i += stride) {
    float& entry = input.flat()[i];
    const float saved = entry;
    entry = saved + eps;
    const double plus = loss();
    entry = saved - eps;
    const double minus = loss();
    entry = saved;
    const double numeric = (plus - minus) / (2.0 * double(eps));
    const double backward = analytic.flat()[i];
    if (!(std::abs(backward - numeric) <= tolerance * (1e-2 + std::abs(numeric)))) {
      return what + " at " + index_text(i, input.shape()) + ": your backward says " +
             number(backward) + ", the finite difference of the forward says " + number(numeric);
    }
  }
  return "";
}

Tensor random_tensor(const std::vector<std::size_t>& shape, unsigned seed, float low, float high) {
  std::mt19937 bits(seed);
  std::uniform_real_distribution<float> uniform(low, high);
  Tensor t(shape);
  for (float& x : t.flat()) x = uniform(bits);
  return t;
}

Tensor as_rows(const Tensor& x) {
  const std::size_t last = x.rank() > 0 ? x.shape().back() : 0;
  Tensor rows({last > 0 ? x.size() / last : 0, last});
  rows.flat() = x.flat();
  return rows;
}

double dot(const Tensor& a, const Tensor& b) {
  double sum = 0.0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
    sum += double(a.flat()[i]) * b.flat()[i];
  return sum;
}

}  // namespace ex::check
