// Checks of the exercise adam (chapter 11).
#include "tfm/train/adam.hpp"

#include <cmath>
#include <xtensor/xadapt.hpp>

#include "convert.hpp"
#include "report.hpp"
#include "tfm/core/parameter.hpp"
#include "tfm/train/learning_rate.hpp"

namespace ex {
void adam_step(Tensor& param, const Tensor& grad, Tensor& m, Tensor& v, std::size_t t, float lr,
               float beta1, float beta2, float eps);
float noam_rate(std::size_t step, std::size_t d_model, std::size_t warmup, float factor);
}  // namespace ex

using namespace ex;
using namespace ex::check;

namespace {

// `steps` Adam steps with the gradients grads[0], grads[1], ... by the learner and by the library.
std::string compare_steps(const Tensor& start, const std::vector<Tensor>& grads, float lr,
                          const tfm::AdamOptions& options) {
  tfm::Param<1> param{to_xt<1>(start), to_xt<1>(Tensor(start.shape()))};
  tfm::ParameterList list;
  list.add("param", param);
  tfm::Adam adam(list, options);
  Tensor mine = start, m(start.shape()), v(start.shape());
  for (std::size_t t = 1; t <= grads.size(); ++t) {
    std::copy(grads[t - 1].flat().begin(), grads[t - 1].flat().end(), param.grad.begin());
    adam.step(lr);
    adam_step(mine, grads[t - 1], m, v, t, lr, options.beta1, options.beta2, options.eps);
    const std::string at = " after step " + std::to_string(t);
    std::string problem =
        compare("m" + at + ":",
                to_ex(xt::xtensor<float, 1>(xt::adapt(adam.first_moment(0), {start.size()}))), m,
                1e-7f, 1e-4f);
    if (problem.empty())
      problem =
          compare("v" + at + ":",
                  to_ex(xt::xtensor<float, 1>(xt::adapt(adam.second_moment(0), {start.size()}))), v,
                  1e-9f, 1e-4f);
    if (problem.empty())
      problem = compare("param" + at + ":", to_ex(param.value), mine, 1e-7f, 1e-5f);
    if (!problem.empty()) return problem;
  }
  return "";
}

}  // namespace

int main() {
  Report report("adam",
                "ex::adam_step(param, grad, m, v, t, lr, beta1, beta2, eps) and "
                "ex::noam_rate(step, d_model, warmup, factor)");
  unsigned seed = 900;
  for (std::size_t n : {1u, 10u, 100u}) {
    const Tensor start = random_tensor({n}, seed += 10);
    std::vector<Tensor> grads;
    for (unsigned s = 0; s < 5; ++s) grads.push_back(random_tensor({n}, seed + s + 1, -0.1f, 0.1f));
    report.check(
        "5 steps against the library's Adam (PyTorch's defaults), n " + std::to_string(n),
        [&] { return compare_steps(start, grads, 1e-3f, tfm::AdamOptions::pytorch_defaults()); },
        "update m and v first, then divide by the bias corrections 1 - beta1^t and sqrt(1 - "
        "beta2^t) "
        "with t counted from 1; eps is added after v's correction: sqrt(v) / sqrt(1 - beta2^t) + "
        "eps.");
  }
  report.check(
      "5 steps with the paper's constants (beta2 0.98, eps 1e-9) and tiny gradients",
      [&] {
        const Tensor start = random_tensor({20}, 950);
        std::vector<Tensor> grads;
        for (unsigned s = 0; s < 5; ++s)
          grads.push_back(random_tensor({20}, 960 + s, -1e-6f, 1e-6f));
        return compare_steps(start, grads, 5e-4f, tfm::AdamOptions::paper());
      },
      "with gradients near eps, where eps goes matters: add it to sqrt(v) / sqrt(1 - beta2^t), "
      "not to v and not before the correction.");
  for (auto [d_model, warmup, factor] : std::vector<std::tuple<std::size_t, std::size_t, float>>{
           {512, 4000, 1.0f}, {64, 10, 2.0f}, {256, 400, 0.5f}}) {
    const std::string setting = "d_model " + std::to_string(d_model) + ", warmup " +
                                std::to_string(warmup) + ", factor " +
                                std::to_string(factor).substr(0, 3);
    report.check(
        "noam_rate against the library's LearningRateSchedule::noam, " + setting +
            ", steps 1, warmup / 2, warmup, 2 warmup, 10 warmup",
        [&] {
          const tfm::LearningRateSchedule schedule =
              tfm::LearningRateSchedule::noam(d_model, warmup, factor);
          for (std::size_t step :
               {std::size_t(1), warmup / 2 + 1, warmup, 2 * warmup, 10 * warmup}) {
            const float want = schedule.at(step), got = noam_rate(step, d_model, warmup, factor);
            if (!(std::abs(want - got) <= 1e-6f * want))
              return "lr at step " + std::to_string(step) + ": expected " + std::to_string(want) +
                     ", got " + std::to_string(got) + (got == 0.0f ? " (not written yet?)" : "");
          }
          return std::string();
        },
        "rises linearly (s * warmup^-1.5) until step warmup, then decays as s^-0.5; the two meet "
        "at s = warmup. Both are scaled by factor / sqrt(d_model).");
  }
  return report.finish();
}
