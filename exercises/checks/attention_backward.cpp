// Checks of the exercise attention_backward (chapter 05).
#include <cmath>

#include "attention_reference.hpp"
#include "report.hpp"

namespace ex {
void attention_backward(const Tensor& query, const Tensor& key, const Tensor& value,
                        const Tensor& weights, const Tensor& grad_context, Tensor& grad_query,
                        Tensor& grad_key, Tensor& grad_value);
}

using namespace ex;
using namespace ex::check;

namespace {

struct Grads {
  Tensor query, key, value;
};

Grads learner_grads(const AttentionInputs& in) {
  const Tensor weights = library_attention(in.query, in.key, in.value, in.mask).weights;
  Grads g;
  attention_backward(in.query, in.key, in.value, weights, in.grad_context, g.query, g.key, g.value);
  return g;
}

const char* const kSoftmaxHint =
    "dA = dC Vᵀ; then softmax's backward, row by row: dS = A * (dA - sum_j dA_j * A_j) (the row "
    "sum matters); then the scale: dQ = dS K / sqrt(d_k), dK = dSᵀ Q / sqrt(d_k).";
const char* const kValueHint = "dV = Aᵀ dC: key j's value gets sum_i A[i, j] * dC[i, :].";

}  // namespace

int main() {
  Report report("attention_backward",
                "ex::attention_backward(query, key, value, weights, grad_context, ...)");
  struct Size {
    std::size_t B, H, Lq, Lk, d_k, d_v, padded;
  };
  const std::vector<Size> sizes = {
      {1, 1, 3, 3, 4, 4, 0}, {2, 2, 4, 6, 8, 5, 0}, {2, 3, 5, 5, 16, 16, 2}};
  unsigned seed = 40;
  for (const Size& s : sizes) {
    const std::string size = "B " + std::to_string(s.B) + ", H " + std::to_string(s.H) + ", Lq " +
                             std::to_string(s.Lq) + ", Lk " + std::to_string(s.Lk) + ", d_k " +
                             std::to_string(s.d_k) + (s.padded ? ", masked" : "");
    const AttentionInputs in =
        attention_inputs(s.B, s.H, s.Lq, s.Lk, s.d_k, s.d_v, s.padded, seed += 10);
    const AttentionReference ref =
        library_attention(in.query, in.key, in.value, in.mask, &in.grad_context);
    report.check(
        "grad_value against the library, " + size,
        [&] {
          return compare("grad_value", ref.grad_value, learner_grads(in).value, 1e-5f, 1e-3f);
        },
        kValueHint);
    report.check(
        "grad_query against the library, " + size,
        [&] {
          return compare("grad_query", ref.grad_query, learner_grads(in).query, 1e-5f, 1e-3f);
        },
        kSoftmaxHint);
    report.check(
        "grad_key against the library, " + size,
        [&] { return compare("grad_key", ref.grad_key, learner_grads(in).key, 1e-5f, 1e-3f); },
        kSoftmaxHint);
  }
  const AttentionInputs in = attention_inputs(2, 2, 3, 4, 4, 3, 1, 77);
  const auto loss = [&](const Tensor& q, const Tensor& k, const Tensor& v) {
    return dot(library_attention(q, k, v, in.mask).context, in.grad_context);
  };
  Tensor query = in.query, key = in.key, value = in.value;
  report.check(
      "finite differences of grad_query (L = sum(context * grad_context))",
      [&] {
        return finite_differences("grad_query", query, learner_grads(in).query,
                                  [&] { return loss(query, key, value); });
      },
      kSoftmaxHint);
  report.check(
      "finite differences of grad_key",
      [&] {
        return finite_differences("grad_key", key, learner_grads(in).key,
                                  [&] { return loss(query, key, value); });
      },
      kSoftmaxHint);
  report.check(
      "finite differences of grad_value",
      [&] {
        return finite_differences("grad_value", value, learner_grads(in).value,
                                  [&] { return loss(query, key, value); });
      },
      kValueHint);
  report.check(
      "PyTorch's gradients (tests/fixtures/attention/self_*.npy)",
      [&] {
        Tensor grad_query, grad_key, grad_value;
        attention_backward(load_fixture("attention/self_q"), load_fixture("attention/self_k"),
                           load_fixture("attention/self_v"), load_fixture("attention/self_weights"),
                           load_fixture("attention/self_grad_context"), grad_query, grad_key,
                           grad_value);
        for (auto [name, got] : {std::pair<const char*, const Tensor*>{"grad_q", &grad_query},
                                 {"grad_k", &grad_key},
                                 {"grad_v", &grad_value}}) {
          std::string problem =
              compare(std::string("d") + (name + 1),
                      load_fixture(std::string("attention/self_") + name), *got, 1e-5f, 1e-3f);
          if (!problem.empty()) return problem;
        }
        return std::string();
      },
      kSoftmaxHint);
  return report.finish();
}
