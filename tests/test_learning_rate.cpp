#include <catch2/catch.hpp>
#include <cmath>

#include "tfm/core/tensor.hpp"
#include "tfm/train/learning_rate.hpp"

using namespace tfm;

TEST_CASE("LearningRateSchedule: noam follows the paper's formula", "[learning_rate]") {
  const auto schedule = LearningRateSchedule::noam(512, 4000);
  auto formula = [](double step) {
    return std::pow(512.0, -0.5) * std::min(std::pow(step, -0.5), step * std::pow(4000.0, -1.5));
  };
  for (std::size_t step : {1u, 2u, 100u, 3999u, 4000u, 4001u, 10000u, 100000u})
    CHECK(schedule.at(step) == Approx(formula(static_cast<double>(step))).epsilon(1e-6));
  // Linear during warm-up, peak at step = warmup, 1/sqrt decay after.
  CHECK(schedule.at(2000) == Approx(2 * schedule.at(1000)).epsilon(1e-6));
  CHECK(schedule.at(4000) == Approx(1.0 / std::sqrt(512.0 * 4000.0)).epsilon(1e-6));
  CHECK(schedule.at(4000) == Approx(6.98771e-4).epsilon(1e-5));
  CHECK(schedule.at(3999) < schedule.at(4000));
  CHECK(schedule.at(4001) < schedule.at(4000));
  CHECK(schedule.at(16000) == Approx(0.5 * schedule.at(4000)).epsilon(1e-6));
  CHECK(schedule.warmup_steps() == 4000);
  CHECK(schedule.describe() ==
        "noam: 1 * 512^-0.5 * min(step^-0.5, step * 4000^-1.5), peak 0.000699 at step 4000");

  const auto scaled = LearningRateSchedule::noam(64, 100, 2.0f);
  CHECK(scaled.at(100) == Approx(2.0 / std::sqrt(64.0 * 100.0)).epsilon(1e-6));
  CHECK(scaled.at(50) == Approx(0.5 * scaled.at(100)).epsilon(1e-6));
}

TEST_CASE("LearningRateSchedule: constant, and clear errors", "[learning_rate]") {
  const auto schedule = LearningRateSchedule::constant(1e-3f);
  CHECK_FALSE(schedule.is_noam());
  CHECK(schedule.at(1) == 1e-3f);
  CHECK(schedule.at(123456) == 1e-3f);
  CHECK(schedule.describe() == "constant: 0.001");
  CHECK_THROWS_WITH(schedule.at(0), Catch::Contains("steps are counted from 1"));
  CHECK_THROWS_AS(LearningRateSchedule::noam(512, 0), ShapeError);
  CHECK_THROWS_AS(LearningRateSchedule::constant(-1.0f), ShapeError);
}
