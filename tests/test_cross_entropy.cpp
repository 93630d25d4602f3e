#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "fixtures.hpp"
#include "gradient_check.hpp"
#include "tfm/core/random.hpp"
#include "tfm/core/trace.hpp"
#include "tfm/train/cross_entropy.hpp"

using namespace tfm;

namespace {

// The fixture stores targets as float32 (small integers, exact); the loss wants int32 ids.
TokenIds load_targets(const std::string& name) {
  const Tensor2 t = testing::load_fixture<2>(name);
  TokenIds ids = TokenIds::from_shape(t.shape());
  for (std::size_t i = 0; i < t.size(); ++i) ids.data()[i] = static_cast<std::int32_t>(t.data()[i]);
  return ids;
}

}  // namespace

TEST_CASE("CrossEntropy: a hand-computed example", "[cross_entropy]") {
  // Row 0: logits (0, ln 3), target 1: p = (1/4, 3/4), loss -ln(3/4). Row 1: padding, ignored.
  Tensor3 logits = {{{0.0f, std::log(3.0f)}, {5.0f, -5.0f}}};
  TokenIds targets = {{1, 0}};
  CrossEntropy loss;
  CHECK(loss.forward(logits, targets) == Approx(-std::log(0.75)).epsilon(1e-6));
  CHECK(loss.counted_tokens() == 1);
  const Tensor3 d = loss.backward();
  CHECK(d(0, 0, 0) == Approx(0.25));
  CHECK(d(0, 0, 1) == Approx(-0.25));
  CHECK(d(0, 1, 0) == 0.0f);  // ignored row
  CHECK(d(0, 1, 1) == 0.0f);

  // With smoothing 0.1 over V = 2: q = (0.05, 0.95).
  CrossEntropy smooth(kPadId, 0.1f);
  CHECK(smooth.forward(logits, targets) ==
        Approx(-(0.05 * std::log(0.25) + 0.95 * std::log(0.75))).epsilon(1e-6));
  CHECK(smooth.backward()(0, 0, 0) == Approx(0.25 - 0.05));
}

TEST_CASE("CrossEntropy: huge logits do not overflow", "[cross_entropy]") {
  Tensor3 logits = {{{1000.0f, 0.0f, -1000.0f}}};
  TokenIds targets = {{2}};
  CrossEntropy loss(-100);
  CHECK(loss.forward(logits, targets) == Approx(2000.0f));
  const Tensor3 d = loss.backward();
  CHECK(d(0, 0, 0) == Approx(1.0f));
  CHECK(d(0, 0, 2) == Approx(-1.0f));
}

// Parity with F.cross_entropy(ignore_index=0, label_smoothing=ε, reduction='mean') in float64.
// Tolerance: relative 1e-4, absolute floor 1e-6 (dlogits are O(0.1 / n_counted)).
TEST_CASE("CrossEntropy: loss and grad_logits agree with PyTorch", "[cross_entropy][pytorch]") {
  const Tensor3 logits = testing::load_fixture<3>("cross_entropy/logits");
  const TokenIds targets = load_targets("cross_entropy/targets");
  const double rtol = 1e-4;
  for (const auto& [name, smoothing] :
       {std::pair<std::string, float>{"plain", 0.0f}, {"smoothed", 0.1f}}) {
    INFO("case " << name);
    CrossEntropy loss(kPadId, smoothing);
    const Tensor1 value = {loss.forward(logits, targets)};
    CHECK(loss.counted_tokens() == 7);  // 10 positions, 3 of them padding
    const double e_loss = testing::max_relative_error(
        value, testing::load_fixture<1>("cross_entropy/" + name + "_loss"));
    const double e_grad = testing::max_relative_error(
        loss.backward(), testing::load_fixture<3>("cross_entropy/" + name + "_grad_logits"));
    UNSCOPED_INFO("CrossEntropy " << name << ": loss " << e_loss << ", grad_logits " << e_grad);
    CHECK(e_loss < rtol);
    CHECK(e_grad < rtol);
  }
}

TEST_CASE("CrossEntropy: grad_logits agree with finite differences", "[cross_entropy][gradcheck]") {
  Rng rng(22);
  Tensor3 logits = Tensor3::from_shape({2, 3, 5});
  rng.fill_normal(logits, 0.0f, 2.0f);
  TokenIds targets = {{3, 1, 0}, {4, 0, 2}};  // two padded positions
  for (float smoothing : {0.0f, 0.1f}) {
    INFO("label smoothing " << smoothing);
    CrossEntropy loss(kPadId, smoothing);
    loss.forward(logits, targets);
    const Tensor3 d = loss.backward();
    // forward returns the mean loss as a float (~2, rounded to ~1e-7): divided by 2·eps that is
    // ~4e-6 of noise per numeric derivative at eps 3e-2, while the truncation error
    // eps²/6 · (third derivative) stays near 1e-6 because log-sum-exp's derivatives are bounded
    // (and divided by the 4 counted tokens). The gradients are O(p / 4) ~ 1e-3 .. 0.2; atol 1e-3
    // guards those near 0, including the exact zeros of the padded rows. Measured worst scores:
    // 6.0e-4 (plain) and 1.2e-3 (smoothed); eps 1e-2 gives 3.4e-3 / 5.6e-3 (rounding-dominated).
    // A wrong gradient (e.g. dividing by all 6 positions instead of the 4 counted) scores O(0.1).
    auto rep = testing::check_gradient(
        logits.data(), d.data(), logits.size(),
        [&] { return double(loss.forward(logits, targets)); }, 3e-2f, 1e-3);
    INFO(rep.describe("grad_logits"));
    CHECK(rep.worst < 1e-2);
  }
}

TEST_CASE("CrossEntropy: bad inputs are clear errors", "[cross_entropy]") {
  CrossEntropy loss;
  const Tensor3 logits = xt::zeros<float>({2, 3, 5});
  CHECK_THROWS_WITH(loss.forward(logits, TokenIds(xt::ones<std::int32_t>({2, 4}))),
                    "CrossEntropy: targets has shape [2, 4], expected [2, 3] (batch, len)");
  TokenIds targets = {{1, 2, 3}, {4, 5, 0}};
  CHECK_THROWS_WITH(loss.forward(logits, targets),
                    "CrossEntropy: target id 5 at [1, 1] is outside the vocabulary [0, 5)");
  targets(1, 1) = -3;
  CHECK_THROWS_WITH(loss.forward(logits, targets), Catch::Contains("target id -3 at [1, 1]"));
  CHECK_THROWS_AS(CrossEntropy().backward(), ShapeError);  // before forward
  CHECK_THROWS_AS(CrossEntropy(kPadId, 1.5f), ShapeError);
}

TEST_CASE("CrossEntropy: all targets ignored gives loss 0 and a zero gradient", "[cross_entropy]") {
  // PyTorch returns NaN (0/0) here; this class defines the mean over no tokens as 0, see its docs.
  Tensor3 logits = Tensor3::from_shape({2, 2, 4});
  Rng rng(23);
  rng.fill_normal(logits, 0.0f, 1.0f);
  for (float smoothing : {0.0f, 0.1f}) {
    CrossEntropy loss(kPadId, smoothing);
    CHECK(loss.forward(logits, TokenIds(xt::zeros<std::int32_t>({2, 2}))) == 0.0f);
    CHECK(loss.counted_tokens() == 0);
    const Tensor3 d = loss.backward();
    CHECK(d.shape() == logits.shape());
    CHECK(xt::all(xt::equal(d, 0.0f)));
  }
}

TEST_CASE("CrossEntropy: reports the logits and loss shapes", "[cross_entropy][trace]") {
  trace::Capture capture;
  CrossEntropy loss;
  loss.forward(Tensor3(xt::zeros<float>({2, 3, 5})), TokenIds(xt::ones<std::int32_t>({2, 3})));
  const auto lines = capture.lines();
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].rfind("[CrossEntropy]", 0) == 0);
  CHECK(lines[0].find("logits -> [2, 3, 5]") != std::string::npos);
  CHECK(lines[0].find("(batch, len, vocab)") != std::string::npos);
  CHECK(lines[1].find("loss -> []") != std::string::npos);
}
