// A parameter's tensors must stay where they were registered (issue #47's trap): the optimizer
// and the checkpoints keep pointers into them.
#include <catch2/catch.hpp>
#include <stdexcept>
#include <xtensor/xnoalias.hpp>

#include "tfm/core/parameter.hpp"
#include "tfm/machinery/checkpoint.hpp"
#include "tfm/train/adam.hpp"

using namespace tfm;
using Catch::Matchers::Contains;

namespace {

struct TwoParams {
  Param<2> weight = Param<2>::zeros({2, 3});
  Param<1> bias = Param<1>::zeros({3});
  void collect_parameters(ParameterList& list) {
    list.add("weight", weight);
    list.add("bias", bias);
  }
};

}  // namespace

TEST_CASE("parameters: a reassigned gradient is an error at the next step, naming it",
          "[parameter]") {
  TwoParams model;
  const ParameterList params = parameters_of(model);
  Adam adam(params);
  model.bias.grad = model.bias.grad + 1.0f;  // a new buffer: the list's pointer is stale
  CHECK_THROWS_WITH(adam.step(1e-3f), Contains("Adam::step") && Contains("'bias'"));
  CHECK_THROWS_WITH(params.zero_grad(), Contains("zero_grad") && Contains("'bias'"));
  CHECK_THROWS_WITH(load_parameters("no such checkpoint", params),
                    Contains("load_parameters") && Contains("'bias'"));
  CHECK(adam.steps_taken() == 0);
}

TEST_CASE("parameters: a resized value is an error too", "[parameter]") {
  TwoParams model;
  const ParameterList params = parameters_of(model);
  model.weight.value.resize({3, 3});
  CHECK_THROWS_AS(params.verify("test"), std::logic_error);
  CHECK_THROWS_WITH(params.verify("test"), Contains("'weight'"));
}

TEST_CASE("parameters: writing into the tensors keeps them registered", "[parameter]") {
  TwoParams model;
  const ParameterList params = parameters_of(model);
  Adam adam(params);
  xt::noalias(model.bias.grad) += xt::xtensor<float, 1>{1.0f, -1.0f, 0.0f};
  model.weight.grad.fill(2.0f);
  CHECK_NOTHROW(params.verify("test"));
  adam.step(0.1f);
  // Adam's first step moves every entry with a gradient by about lr against its sign.
  CHECK(model.bias.value(0) == Approx(-0.1f));
  CHECK(model.bias.value(1) == Approx(0.1f));
  CHECK(model.weight.value(1, 2) == Approx(-0.1f));
  CHECK_NOTHROW(params.zero_grad());
}
