#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <xtensor/xnoalias.hpp>

#include "fixtures.hpp"
#include "tfm/train/adam.hpp"

using namespace tfm;

namespace {

// Two small parameters, a weight [3, 4] and a bias [4], as a layer would register them.
struct Tiny {
  Param<2> weight = Param<2>::zeros({3, 4});
  Param<1> bias = Param<1>::zeros({4});
  void collect_parameters(ParameterList& list) {
    list.add("weight", weight);
    list.add("bias", bias);
  }
};

}  // namespace

// Three torch.optim.Adam steps (float64) with given gradients and a changing learning rate.
// Tolerance: relative 1e-4 with an absolute floor of 1e-6 on the parameters after every step
// (they are O(1); one step moves them by ~lr = 1e-2).
TEST_CASE("Adam: three steps agree with torch.optim.Adam", "[adam][pytorch]") {
  const float learning_rates[] = {1e-2f, 5e-3f, 2e-2f};
  const std::pair<std::string, AdamOptions> cases[] = {
      {"paper", AdamOptions::paper()},
      {"default", AdamOptions::pytorch_defaults()},
      {"decay", AdamOptions{0.9f, 0.999f, 1e-8f, 0.01f}}};
  for (const auto& [name, options] : cases) {
    INFO("case " << name);
    Tiny model;
    model.weight.value = testing::load_fixture<2>("adam/w0");
    model.bias.value = testing::load_fixture<1>("adam/b0");
    Adam adam(parameters_of(model), options);
    double worst = 0.0;
    for (int step = 1; step <= 3; ++step) {
      const std::string s = std::to_string(step);
      // Write into the existing buffers: the optimizer holds pointers to them, and plain
      // assignment of a new tensor would swap in another buffer.
      xt::noalias(model.weight.grad) = testing::load_fixture<2>("adam/grad_w_" + s);
      xt::noalias(model.bias.grad) = testing::load_fixture<1>("adam/grad_b_" + s);
      adam.step(learning_rates[step - 1]);
      CHECK(adam.steps_taken() == static_cast<std::size_t>(step));
      const double e_w = testing::max_relative_error(
          model.weight.value, testing::load_fixture<2>("adam/" + name + "_w_" + s));
      const double e_b = testing::max_relative_error(
          model.bias.value, testing::load_fixture<1>("adam/" + name + "_b_" + s));
      INFO("step " << step << ": weight " << e_w << ", bias " << e_b);
      CHECK(e_w < 1e-4);
      CHECK(e_b < 1e-4);
      worst = std::max({worst, e_w, e_b});
    }
    // The moments PyTorch keeps (exp_avg, exp_avg_sq) are the ones a checkpoint would save.
    const Tensor2 m = testing::load_fixture<2>("adam/" + name + "_w_exp_avg");
    const Tensor2 v = testing::load_fixture<2>("adam/" + name + "_w_exp_avg_sq");
    const Tensor2 my_m = xt::adapt(adam.first_moment(0), m.shape());
    const Tensor2 my_v = xt::adapt(adam.second_moment(0), v.shape());
    const double e_m = testing::max_relative_error(my_m, m),
                 e_v = testing::max_relative_error(my_v, v);
    UNSCOPED_INFO("Adam " << name << ": parameters " << worst << ", exp_avg " << e_m
                          << ", exp_avg_sq " << e_v);
    CHECK(e_m < 1e-4);
    CHECK(e_v < 1e-4);
  }
}

TEST_CASE("Adam: the first step moves every entry by about lr against its gradient's sign",
          "[adam]") {
  // At t = 1 the bias-corrected m̂ = g and v̂ = g², so the step is lr · g / (|g| + ε).
  Tiny model;
  model.weight.grad.fill(-3.0f);
  model.bias.grad = {2.0f, -0.5f, 1e-3f, 0.0f};
  Adam adam(parameters_of(model), AdamOptions::paper());
  adam.step(0.1f);
  CHECK(xt::allclose(model.weight.value, 0.1f));
  CHECK(model.bias.value(0) == Approx(-0.1f));
  CHECK(model.bias.value(1) == Approx(0.1f));
  CHECK(model.bias.value(2) == Approx(-0.1f).epsilon(1e-5));
  CHECK(model.bias.value(3) == 0.0f);  // no gradient, no move (0 / (0 + ε))
}

TEST_CASE("Adam: restoring a saved state resumes exactly", "[adam]") {
  auto fill = [](Tiny& model, float k) {
    for (std::size_t i = 0; i < model.weight.grad.size(); ++i)
      model.weight.grad.data()[i] = std::sin(k * static_cast<float>(i + 1));
    for (std::size_t i = 0; i < model.bias.grad.size(); ++i)
      model.bias.grad.data()[i] = std::cos(k * static_cast<float>(i + 1));
  };
  Tiny a, b;
  Adam adam_a(parameters_of(a));
  for (int k = 1; k <= 3; ++k) {
    fill(a, static_cast<float>(k));
    adam_a.step(1e-2f);
  }
  // b gets a's parameters and optimizer state, as if loaded from a checkpoint.
  b.weight.value = a.weight.value;
  b.bias.value = a.bias.value;
  Adam adam_b(parameters_of(b));
  adam_b.restore(adam_a.steps_taken(), {adam_a.first_moment(0), adam_a.first_moment(1)},
                 {adam_a.second_moment(0), adam_a.second_moment(1)});
  CHECK(adam_b.steps_taken() == 3);
  fill(a, 4.0f);
  fill(b, 4.0f);
  adam_a.step(1e-2f);
  adam_b.step(1e-2f);
  CHECK((a.weight.value == b.weight.value));
  CHECK((a.bias.value == b.bias.value));

  CHECK_THROWS_WITH(adam_b.restore(1, {adam_a.first_moment(0)}, {adam_a.second_moment(0)}),
                    Catch::Contains("1 first and 1 second moments for 2 parameters"));
  CHECK_THROWS_WITH(adam_b.restore(1, {adam_a.first_moment(0), {1.0f}},
                                   {adam_a.second_moment(0), adam_a.second_moment(1)}),
                    Catch::Contains("'bias' have 1 and 4 entries, the parameter has 4"));
  CHECK_THROWS_AS(adam_b.first_moment(2), std::out_of_range);
}

TEST_CASE("Adam: options are checked as torch.optim.Adam checks them", "[adam]") {
  Tiny model;
  const ParameterList params = parameters_of(model);
  CHECK_THROWS_AS(Adam(params, AdamOptions{1.0f, 0.98f, 1e-9f, 0.0f}), ShapeError);
  CHECK_THROWS_AS(Adam(params, AdamOptions{0.9f, -0.1f, 1e-9f, 0.0f}), ShapeError);
  CHECK_THROWS_AS(Adam(params, AdamOptions{0.9f, 0.98f, -1.0f, 0.0f}), ShapeError);
  Adam adam(params);
  CHECK_THROWS_AS(adam.step(-1e-3f), ShapeError);
  CHECK(AdamOptions::paper().beta2 == 0.98f);
  CHECK(AdamOptions::paper().eps == 1e-9f);
  CHECK(AdamOptions::pytorch_defaults().beta2 == 0.999f);
}
