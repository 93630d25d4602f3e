#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <thread>

#include "tfm/core/matmul.hpp"
#include "tfm/core/trace.hpp"
#include "tfm/engine/profile.hpp"
#include "tfm/layers/layer_norm.hpp"

using namespace tfm;

namespace {

// Turns the profile on for a test and leaves it off and empty after, whatever the test does.
struct ProfileOn {
  ProfileOn() {
    profile::reset();
    profile::set_enabled(true);
  }
  ~ProfileOn() {
    profile::set_enabled(false);
    profile::reset();
  }
};

const profile::Entry* find(const std::vector<profile::Entry>& entries, const std::string& kind) {
  const auto it = std::find_if(entries.begin(), entries.end(),
                               [&](const profile::Entry& e) { return e.kind == kind; });
  return it == entries.end() ? nullptr : &*it;
}

void sleep_ms(int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

}  // namespace

TEST_CASE("the profile records nothing while it is off", "[profile]") {
  profile::reset();
  REQUIRE_FALSE(profile::enabled());
  { const profile::Scope scope("work"); }
  (void)matmul(Tensor2::from_shape({2, 3}), Tensor2::from_shape({3, 4}));
  CHECK(profile::entries().empty());
}

TEST_CASE("every product is recorded by its transposes and shape", "[profile]") {
  const ProfileOn on;
  Tensor2 a = Tensor2::from_shape({3, 5}), b = Tensor2::from_shape({4, 5});
  a.fill(1.0f);
  b.fill(1.0f);
  (void)matmul(a, b, Op::kPlain, Op::kTransposed);  // [3, 5] · [5, 4]
  (void)matmul(a, b, Op::kPlain, Op::kTransposed);
  Tensor4 q = Tensor4::from_shape({2, 3, 6, 8});
  q.fill(0.5f);
  (void)matmul(q, q, Op::kPlain, Op::kTransposed);  // 6 products [6, 8] · [8, 6]

  const auto entries = profile::entries();
  const profile::Entry* linear = find(entries, "product nt 3x4x5");
  REQUIRE(linear != nullptr);
  CHECK(linear->is_product);
  CHECK(linear->calls == 2);
  CHECK(linear->product.flops() == 2.0 * 3 * 4 * 5);
  const profile::Entry* heads = find(entries, "product nt 6 x 6x6x8");
  REQUIRE(heads != nullptr);
  CHECK(heads->product.batch == 6);
  CHECK(heads->product.flops() == 2.0 * 6 * 6 * 6 * 8);
}

TEST_CASE("a nested scope's time counts for the inner kind only", "[profile]") {
  const ProfileOn on;
  const auto start = std::chrono::steady_clock::now();
  {
    const profile::Scope outer("outer");
    sleep_ms(20);
    {
      const profile::Scope inner("inner");
      sleep_ms(40);
    }
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto entries = profile::entries();
  const profile::Entry* outer = find(entries, "outer");
  const profile::Entry* inner = find(entries, "inner");
  REQUIRE(outer != nullptr);
  REQUIRE(inner != nullptr);
  CHECK(inner->seconds >= 0.040);
  CHECK(outer->seconds >= 0.020);
  CHECK(outer->seconds < inner->seconds);          // the inner 40 ms are not the outer's
  CHECK(outer->seconds + inner->seconds <= wall);  // the kinds add up to at most the whole
  CHECK(entries.front().kind == "inner");          // the most time first
}

TEST_CASE("a traced step is charged the time since the step before it", "[profile]") {
  const ProfileOn on;
  constexpr trace::Component traced("Work");
  const Tensor1 x = Tensor1::from_shape({2});
  sleep_ms(20);
  traced(x, "first", "x", "n");
  sleep_ms(40);
  traced(x, "second", "x", "n");
  sleep_ms(10);
  {
    const profile::Scope inner("inner");  // its 30 ms are its own, not the next step's
    sleep_ms(30);
  }
  traced(x, "third", "x", "n");
  const auto entries = profile::entries();
  const profile::Entry* first = find(entries, "[Work] first");
  const profile::Entry* second = find(entries, "[Work] second");
  const profile::Entry* third = find(entries, "[Work] third");
  const profile::Entry* inner = find(entries, "inner");
  REQUIRE(first != nullptr);
  REQUIRE(second != nullptr);
  REQUIRE(third != nullptr);
  REQUIRE(inner != nullptr);
  CHECK(first->seconds >= 0.020);
  CHECK(second->seconds >= 0.040);
  CHECK(second->calls == 1);
  CHECK(inner->seconds >= 0.030);
  CHECK(third->seconds >= 0.010);
  CHECK(third->seconds < 0.030);
}

TEST_CASE("the time before a trace scope opens or closes is charged to no step", "[profile]") {
  const ProfileOn on;
  constexpr trace::Component traced("Work");
  const Tensor1 x = Tensor1::from_shape({2});
  sleep_ms(40);
  {
    const trace::Scope part("part");  // the trace is off: it prints nothing, but it marks
    sleep_ms(40);
  }
  traced(x, "after the scope", "x", "n");
  {
    const profile::Scope outer("outer");  // a step inside a running Scope is the Scope's time
    sleep_ms(20);
    traced(x, "inside a Scope", "x", "n");
  }
  const auto entries = profile::entries();
  const profile::Entry* after = find(entries, "[Work] after the scope");
  REQUIRE(after != nullptr);
  CHECK(after->seconds < 0.030);
  CHECK(find(entries, "[Work] inside a Scope") == nullptr);
  REQUIRE(find(entries, "outer") != nullptr);
  CHECK(find(entries, "outer")->seconds >= 0.020);
}

TEST_CASE("a layer's work is named by its trace line", "[profile]") {
  const ProfileOn on;
  LayerNorm norm(4);
  Tensor3 x = Tensor3::from_shape({2, 3, 4});
  x.fill(1.0f);
  (void)norm.forward(x);
  const auto entries = profile::entries();
  const profile::Entry* entry = find(entries, "[LayerNorm] normalise over d_model");
  REQUIRE(entry != nullptr);
  CHECK(entry->calls == 1);
  CHECK_FALSE(entry->is_product);
}

TEST_CASE("a product's subnormal inputs are counted, and nothing else", "[profile]") {
  // Stored subnormals stay subnormal (only arithmetic flushes them): three in a, one in b; a
  // tiny normal float and a zero are not counted.
  const ProfileOn on;
  Tensor2 a = Tensor2::from_shape({4, 6}), b = Tensor2::from_shape({6, 2});
  a.fill(1.0f);
  b.fill(1.0f);
  const float subnormal = std::ldexp(1.0f, -130);
  a(0, 0) = a(1, 3) = a(3, 5) = subnormal;
  a(2, 2) = std::numeric_limits<float>::min();  // the smallest normal float
  a(2, 3) = 0.0f;
  b(4, 1) = -subnormal;
  (void)matmul(a, b);
  const std::vector<profile::Entry> entries = profile::entries();
  const profile::Entry* product = find(entries, "product nn 4x2x6");
  REQUIRE(product != nullptr);
  CHECK(product->inputs == a.size() + b.size());
  CHECK(product->subnormal_inputs == 4);
  // The counting is timed as the profile's own kind, not as the product's time.
  CHECK(find(entries, "profile: counting subnormal inputs") != nullptr);
}
