#include <catch2/catch.hpp>

#include "tfm/trace.hpp"

TEST_CASE("trace: steps are indented by scope and captured", "[trace]") {
  tfm::trace::Capture capture;
  tfm::Tensor3 x = xt::zeros<float>({2, 5, 8});
  {
    tfm::trace::Scope outer("Encoder");
    tfm::trace::step("Embedding", "look up", "x", x, "batch, len, d_model");
  }
  const auto lines = capture.lines();
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == "Encoder");
  CHECK(lines[1].rfind("[Embedding] look up", 0) == 0);
  CHECK(lines[1].find("x -> [2, 5, 8]") != std::string::npos);
  CHECK(lines[1].find("(batch, len, d_model)") != std::string::npos);
  CHECK(capture.text().find("\n  [Embedding]") != std::string::npos);
}

TEST_CASE("trace: nothing is written while off", "[trace]") {
  tfm::trace::Capture capture;
  tfm::trace::Enable off(false);
  tfm::Tensor2 x = xt::zeros<float>({3, 4});
  tfm::trace::Scope scope("hidden");
  tfm::trace::step("C", "step", "x", x, "a, b");
  CHECK(capture.lines().empty());
}

TEST_CASE("require_shape names the operation, operand, shapes and axes", "[trace]") {
  tfm::Tensor3 x = xt::zeros<float>({2, 7, 128});
  CHECK_NOTHROW(tfm::require_shape("Op", "key", x, {2, tfm::kAnyExtent, 128}));
  CHECK_THROWS_WITH(tfm::require_shape("MultiHeadAttention", "key", x, {2, tfm::kAnyExtent, 256},
                                       "(batch, len_k, d_model)"),
                    "MultiHeadAttention: key has shape [2, 7, 128], expected [2, *, 256] "
                    "(batch, len_k, d_model)");
}
