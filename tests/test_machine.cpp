// The machine set-up (engine/machine.hpp): subnormal floats flushed to zero on every thread that
// computes, and products that give the same bits on 1 thread as on 2.
//
// Under ctest these cases run twice: in the ordinary single-threaded run and in the two_threads
// entry (OMP_NUM_THREADS=2), where the products are split across two threads.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <vector>

#include "tfm/core/matmul.hpp"
#include "tfm/core/parameter.hpp"
#include "tfm/core/random.hpp"
#include "tfm/data/vocabulary.hpp"
#include "tfm/engine/machine.hpp"
#include "tfm/model/config.hpp"
#include "tfm/model/transformer.hpp"
#include "tfm/train/adam.hpp"
#include "tfm/train/trainer.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

using namespace tfm;

namespace {

// 2^-130: below the smallest normal float (2^-126), so a subnormal; written as a bit pattern
// would be the same: storing it is a copy, only arithmetic on it is flushed.
const float kSubnormal = std::ldexp(1.0f, -130);

}  // namespace

TEST_CASE("machine: the value the tests use is a subnormal float", "[machine]") {
  // std::ldexp is computed by the C library in integer arithmetic, not by the vector unit, so
  // the flush does not touch it.
  CHECK(std::fpclassify(kSubnormal) == FP_SUBNORMAL);
  CHECK(kSubnormal < std::numeric_limits<float>::min());
}

TEST_CASE("machine: every thread that computes flushes subnormals to zero", "[machine][threads]") {
#if !defined(__x86_64__)
  WARN("not an x86-64 CPU: the library leaves the floating-point mode as it is");
  return;
#endif
  CHECK(flushes_subnormals_on_this_thread());
  int threads_checked = 0, threads_flushing = 0;
#ifdef _OPENMP
#pragma omp parallel reduction(+ : threads_checked, threads_flushing)
#endif
  {
    threads_checked += 1;
    threads_flushing += flushes_subnormals_on_this_thread() ? 1 : 0;
  }
  INFO(threads_checked << " threads of the pool checked");
  CHECK(threads_checked == compute_threads());
  CHECK(threads_flushing == threads_checked);
  // And the mode does what it says: a subnormal input is read as 0 (DAZ), so the product is 0.
  volatile float tiny = kSubnormal;
  CHECK(tiny * 1.0f == 0.0f);
}

TEST_CASE("machine: a product with a subnormal operand gives exactly 0 on every path",
          "[machine][threads]") {
#if !defined(__x86_64__)
  WARN("not an x86-64 CPU: the library leaves the floating-point mode as it is");
  return;
#endif
  // Kept, the subnormals would add up: K of them times 1 is K · 2^-130, not 0. Each product runs
  // on a different path of matmul.cpp: one call on this thread, a big product cut into slices
  // for the threads, and a batch of small products shared out one per thread. A thread that
  // computes without the flush leaves its part of the result non-zero.
  struct Case {
    const char* path;
    std::size_t batch, m, n, k;
  };
  for (const Case c : {Case{"one call", 1, 8, 8, 64}, Case{"cut into slices", 1, 5120, 256, 256},
                       Case{"a batch, one product per thread", 256, 40, 32, 40}}) {
    INFO(c.path << ": " << c.batch << " x [" << c.m << ", " << c.k << "] x [" << c.k << ", " << c.n
                << "]");
    Tensor3 a = Tensor3::from_shape({c.batch, c.m, c.k});
    Tensor3 b = Tensor3::from_shape({c.batch, c.k, c.n});
    a.fill(kSubnormal);
    b.fill(1.0f);
    const Tensor3 product = matmul(a, b);
    std::size_t non_zero = 0;
    for (const float x : product) non_zero += x != 0.0f ? 1 : 0;
    CHECK(non_zero == 0);
  }
  // The weight gradient's form, dW += dyᵀ x summed over 5120 positions: the sum is cut into
  // slices, each a partial dW of its own.
  Tensor3 grad_y = Tensor3::from_shape({128, 40, 256}), x = Tensor3::from_shape({128, 40, 256});
  grad_y.fill(kSubnormal);
  x.fill(1.0f);
  Tensor2 grad_w = Tensor2::from_shape({256, 256});
  grad_w.fill(0.0f);
  matmul_accumulate(grad_w, grad_y, x, Op::kTransposed, Op::kPlain);
  std::size_t non_zero = 0;
  for (const float v : grad_w) non_zero += v != 0.0f ? 1 : 0;
  CHECK(non_zero == 0);
}

#ifdef _OPENMP
namespace {

// Every weight of a vowels-small model after `steps` training steps on `threads` threads, as raw
// bits, with the loss of each step.
struct Trained {
  std::vector<float> weights;
  std::vector<double> losses;
};

Trained train_on(int threads, std::size_t steps) {
  const int before = omp_get_max_threads();
  omp_set_num_threads(threads);
  Config config = preset("vowels-small");
  config.batch_size = 32;
  config.dropout = 0.1f;  // the masks too must not depend on the threads
  Transformer model(config, 7);
  const ParameterList params = parameters_of(model);
  Adam optimizer(params, AdamOptions::paper());
  Rng rng(11);
  std::vector<Batch> batches;
  for (std::size_t i = 0; i < steps; ++i) {
    Batch batch{TokenIds::from_shape({config.batch_size, config.src_len}),
                TokenIds::from_shape({config.batch_size, config.tgt_len}),
                TokenIds::from_shape({config.batch_size, config.tgt_len})};
    for (auto* ids : {&batch.src, &batch.tgt_in, &batch.tgt_out})
      for (auto& id : *ids)
        id = kFirstSymbolId +
             static_cast<std::int32_t>(rng.below(config.tgt_vocab_size - kFirstSymbolId));
    batches.push_back(batch);
  }
  TrainingOptions options = TrainingOptions::from_config(config);
  options.max_steps = steps;
  options.trace_first_step = false;
  std::ostringstream progress;
  const TrainingHistory history = train(
      model, optimizer, [&](std::size_t index) { return batches[index]; }, {}, options, progress,
      false);
  omp_set_num_threads(before);
  Trained out;
  out.losses = history.train_loss;
  for (const ParameterRef& p : params)
    out.weights.insert(out.weights.end(), p.value, p.value + p.size);
  return out;
}

}  // namespace

TEST_CASE("machine: training gives the same bits on 1 thread as on 2", "[machine][threads]") {
  // The products are cut into slices by their shape alone (gemm_split), and every other loop
  // the threads share computes each entry on one thread: so the thread count changes the time,
  // never a bit of the result. Three steps of dropout, attention, LayerNorm and Adam at
  // vowels-small's sizes, once on each.
  const Trained one = train_on(1, 3), two = train_on(2, 3);
  REQUIRE(one.losses.size() == 3);
  CHECK(one.losses == two.losses);
  REQUIRE(one.weights.size() == two.weights.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < one.weights.size(); ++i)
    differ += std::memcmp(&one.weights[i], &two.weights[i], sizeof(float)) != 0 ? 1 : 0;
  INFO(differ << " of " << one.weights.size() << " weights differ");
  CHECK(differ == 0);
}
#endif
