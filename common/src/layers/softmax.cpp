#include "tfm/layers/softmax.hpp"

#include "tfm/engine/fast_exp.hpp"
#include "tfm/engine/reductions.hpp"

namespace tfm {

// [softmax forward]
void softmax_rows(const float* x, float* y, std::size_t rows, std::size_t cols) {
  // x, y: [rows, cols]; every row becomes a probability distribution. Rows are independent,
  // so they are shared out among the threads.
#pragma omp parallel for if (rows * cols > (1 << 15))
  for (std::size_t r = 0; r < rows; ++r) {
    const float* in = x + r * cols;
    float* out = y + r * cols;
    // Subtract the row maximum so that the largest exponent is e^0 = 1: no overflow, and a
    // row of -1e9 (fully masked) becomes uniform instead of 0/0.
    const float max = max_of(in, cols);
    const float sum = exp_shifted(in, max, out, cols);  // out_j = e^(in_j - max); their sum
    const float inv = 1.0f / sum;                       // sum >= 1: the maximum contributes e^0
    for (std::size_t j = 0; j < cols; ++j) out[j] *= inv;
  }
}
// [softmax forward]

// [softmax backward]
void softmax_rows_backward(const float* y, const float* grad_y, float* grad_x, std::size_t rows,
                           std::size_t cols) {
  // y, grad_y, grad_x: [rows, cols].
  // The Jacobian of one row is dy_i/dx_j = y_i (δ_ij - y_j), so the vector-Jacobian product is
  // dx_j = y_j (dy_j - Σ_i dy_i y_i): one dot product per row, never the [cols, cols] matrix.
#pragma omp parallel for if (rows * cols > (1 << 15))
  for (std::size_t r = 0; r < rows; ++r) {
    const float* yr = y + r * cols;
    const float* dyr = grad_y + r * cols;
    float* dxr = grad_x + r * cols;
    const float dy_dot_y = dot(dyr, yr, cols);
    for (std::size_t j = 0; j < cols; ++j) dxr[j] = yr[j] * (dyr[j] - dy_dot_y);
  }
}
// [softmax backward]

}  // namespace tfm
