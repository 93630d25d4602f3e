#include "tfm/layers/embedding.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "tfm/core/no_grad.hpp"
#include "tfm/core/trace.hpp"

namespace tfm {

namespace {
constexpr trace::Component traced("Embedding");
}  // namespace

Embedding::Embedding(std::size_t vocab_size, std::size_t d_model, Rng& rng, float init_std)
    : vocab_(vocab_size),
      d_model_(d_model),
      scale_(static_cast<float>(std::sqrt(static_cast<double>(d_model)))) {
  require(vocab_size >= 1 && d_model >= 1, "Embedding",
          "vocab_size and d_model must be at least 1, got vocab_size " +
              std::to_string(vocab_size) + ", d_model " + std::to_string(d_model));
  weight = Param<2>::zeros({vocab_, d_model_});
  rng.fill_normal(weight.value, 0.0f, init_std);
}

void Embedding::check_ids(const TokenIds& ids) const {
  for (std::size_t b = 0; b < ids.shape(0); ++b)
    for (std::size_t l = 0; l < ids.shape(1); ++l) {
      const std::int32_t id = ids(b, l);
      if (id < 0 || static_cast<std::size_t>(id) >= vocab_)
        throw std::out_of_range("Embedding: token id " + std::to_string(id) + " at position [" +
                                std::to_string(b) + ", " + std::to_string(l) +
                                "] is outside the vocabulary [0, " + std::to_string(vocab_) + ")");
    }
}

// [embedding forward]
Tensor3 Embedding::forward(const TokenIds& ids) {
  // ids [B, L]  ->  x [B, L, d_model]: one row of the table per token, times √d_model
  check_ids(ids);
  if (grad_enabled()) ids_ = ids;  // backward scatters into these rows
  const std::size_t batch = ids.shape(0), len = ids.shape(1), d = d_model_;
  Tensor3 x = Tensor3::from_shape({batch, len, d});
  for (std::size_t t = 0; t < batch * len; ++t) {
    const float* row = weight.value.data() + static_cast<std::size_t>(ids.data()[t]) * d;
    float* out = x.data() + t * d;
    for (std::size_t j = 0; j < d; ++j) out[j] = row[j] * scale_;
  }
  traced(x, "look up and scale by sqrt(d_model)", "x", "batch, len, d_model");
  return x;
}
// [embedding forward]

void Embedding::backward(const Tensor3& grad_y) {
  backward(ids_, grad_y);
}

// [embedding backward]
void Embedding::backward(const TokenIds& ids, const Tensor3& grad_y) {
  // grad_y [B, L, d_model] -> weight.grad [vocab, d_model]: the lookup copied row ids[b, l] to
  // position (b, l), so its gradient is scattered back there. A token that occurs several times
  // collects the sum of the gradients of all its occurrences (hence +=, never =).
  require_shape("Embedding backward", "grad_y", grad_y, {ids.shape(0), ids.shape(1), d_model_},
                "(batch, len, d_model)");
  check_ids(ids);
  const std::size_t d = d_model_;
  for (std::size_t t = 0; t < ids.size(); ++t) {
    float* grad_row = weight.grad.data() + static_cast<std::size_t>(ids.data()[t]) * d;
    const float* g = grad_y.data() + t * d;
    for (std::size_t j = 0; j < d; ++j) grad_row[j] += g[j] * scale_;
  }
  traced(weight.grad, "backward: scatter-add grad_x * sqrt(d_model) into the ids' rows",
         "grad_weight", "vocab, d_model");
}
// [embedding backward]

void Embedding::collect_parameters(ParameterList& list) {
  list.add("weight", weight);
}

}  // namespace tfm
