#include <catch2/catch.hpp>
#include <sstream>
#include <vector>

#include "tfm/core/trace.hpp"

namespace {
// The components of the lines this program adds to the shape trace.
constexpr tfm::trace::Component traced_embedding("Embedding");
constexpr tfm::trace::Component traced_top("Top");
constexpr tfm::trace::Component traced_c("C");
}  // namespace

TEST_CASE("trace: steps are indented by scope and captured", "[trace]") {
  tfm::trace::Capture capture;
  tfm::Tensor3 x = xt::zeros<float>({2, 5, 8});
  {
    tfm::trace::Scope outer("Encoder");
    traced_embedding(x, "look up", "x", "batch, len, d_model");
  }
  const auto lines = capture.lines();
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == "Encoder");
  CHECK(lines[1].rfind("[Embedding] look up", 0) == 0);
  CHECK(lines[1].find("x -> [2, 5, 8]") != std::string::npos);
  CHECK(lines[1].find("(batch, len, d_model)") != std::string::npos);
  CHECK(capture.text().find("\n  [Embedding]") != std::string::npos);
}

TEST_CASE("trace: a component's step returns its tensor; records hold every line as data",
          "[trace]") {
  constexpr tfm::trace::Component traced("FeedForward");
  tfm::trace::Capture capture;
  tfm::Tensor3 y;
  {
    tfm::trace::Scope layer("layer 0");
    y = traced(tfm::Tensor3(xt::ones<float>({2, 3, 4})), "relu", "h", "batch, len, d_ff");
    tfm::trace::note("a note");
  }
  traced_top(y, "after", "y", "");
  CHECK(y.shape() == tfm::Tensor3::shape_type{2, 3, 4});  // the tensor itself came back
  CHECK(y(1, 2, 3) == 1.0f);
  using Kind = tfm::trace::Record::Kind;
  const std::vector<tfm::trace::Record>& records = capture.records();
  REQUIRE(records.size() == 4);
  CHECK(records[0].kind == Kind::kScope);
  CHECK(records[0].text == "layer 0");
  CHECK(records[0].depth == 0);
  CHECK(records[1].kind == Kind::kStep);
  CHECK(records[1].component == "FeedForward");
  CHECK(records[1].what == "relu");
  CHECK(records[1].tensor == "h");
  CHECK(records[1].shape == "[2, 3, 4]");
  CHECK(records[1].axes == "batch, len, d_ff");
  CHECK(records[1].depth == 1);
  CHECK(records[2].kind == Kind::kNote);
  CHECK(tfm::trace::scope_end(records, 0) == 3);  // the scope holds the step and the note
  CHECK(tfm::trace::scope_end(records, 3) == 4);
  CHECK(records[1] != records[3]);
  // print() gives back the captured text, line for line.
  std::ostringstream printed;
  tfm::trace::print(records, printed);
  CHECK(printed.str() == capture.text());
}

TEST_CASE("trace: nothing is written while off", "[trace]") {
  tfm::trace::Capture capture;
  tfm::trace::Enable off(false);
  tfm::Tensor2 x = xt::zeros<float>({3, 4});
  tfm::trace::Scope scope("hidden");
  traced_c(x, "step", "x", "a, b");
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
