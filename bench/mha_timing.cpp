// Forward + backward time of one MultiHeadAttention at the `vowels` preset's size
// (batch 128, len 40, d_model 256, 8 heads, no bias): the C++ half of bench/mha_timing.py.
//
// Not part of the build (no timing belongs in the tests). Build it against a built library:
//   c++ -O3 -march=native -std=c++17 -I common/include bench/mha_timing.cpp
//       build/common/libtfm_common.a -lopenblas -o build/mha_timing
//   OPENBLAS_NUM_THREADS=1 build/mha_timing [runs]
// Prints one line: the median, minimum and maximum of `runs` timed iterations (after 3 warm-up
// iterations), in milliseconds.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "tfm/config.hpp"
#include "tfm/multi_head_attention.hpp"
#include "tfm/random.hpp"

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 15;
  const tfm::Config c = tfm::preset("vowels");
  const std::size_t B = c.batch_size, L = c.src_len, d = c.d_model;

  tfm::Rng rng(0);
  tfm::MultiHeadAttention mha(d, c.n_heads, c.attention_bias, rng);
  tfm::Tensor3 x = tfm::Tensor3::from_shape({B, L, d}), dy = tfm::Tensor3::from_shape({B, L, d});
  rng.fill_normal(x, 0.0f, 1.0f);
  rng.fill_normal(dy, 0.0f, 1.0f);
  tfm::ParameterList params = tfm::parameters_of(mha);

  // One training-style step of the layer: self-attention forward, backward, and the sum of the
  // two input gradients (as an encoder layer does). The gradients are cleared outside the timing.
  tfm::Tensor3 dx;
  auto step = [&] {
    mha.forward(x, x);
    const tfm::MultiHeadAttention::Grads g = mha.backward(dy);
    dx = g.query_input + g.memory;
  };
  for (int i = 0; i < 3; ++i) step();
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    params.zero_grad();
    const auto t0 = std::chrono::steady_clock::now();
    step();
    const auto t1 = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf(
      "C++ MultiHeadAttention [%zu, %zu, %zu], %zu heads, bias %s: median %.2f ms (min %.2f, max "
      "%.2f, %d runs)\n",
      B, L, d, c.n_heads, c.attention_bias ? "yes" : "no", ms[ms.size() / 2], ms.front(), ms.back(),
      runs);
  return 0;
}
