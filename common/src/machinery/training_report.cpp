#include "tfm/machinery/training_report.hpp"

#include <sstream>

#include "tfm/engine/machine.hpp"
#include "tfm/engine/precision.hpp"
#include "tfm/pictures/line_chart.hpp"

namespace tfm {

std::string summary(const TrainingHistory& h) {
  std::ostringstream line;
  line.setf(std::ios::fixed);
  line.precision(1);
  // The thread count and OpenBLAS's kernels are part of the result: they change the order of
  // floating-point sums, so the same seed and steps give the same numbers only on the same number
  // of threads and the same kernels (and CPU kind).
  const int threads = compute_threads();
  line << "trained " << h.steps.size() << " steps" << (h.stopped ? " (stopped by a signal)" : "")
       << " in " << h.seconds << " s on " << threads << (threads == 1 ? " thread: " : " threads: ");
  line.precision(0);
  line << h.tokens_per_second() << " tokens/s";
  line.precision(4);
  if (!h.train_loss.empty())
    line << "; loss " << h.train_loss.front() << " -> " << h.train_loss.back();
  if (!h.held_out_loss.empty()) line << "; held-out loss " << h.held_out_loss.back();
  if (product_precision() == Precision::kBf16)
    line << "; products in bf16 on oneDNN's " << bf16_kernels() << ", the small ones in fp32 on";
  else
    line << ";";
  line << " OpenBLAS " << blas_kernels() << " kernels\n";
  return line.str();
}

void write_loss_curve_svg(const std::string& path, const TrainingHistory& h,
                          const std::string& title) {
  ChartSeries train{"train", {h.steps.begin(), h.steps.end()}, h.train_loss, "#1f77b4"};
  ChartSeries held_out{
      "held-out", {h.eval_steps.begin(), h.eval_steps.end()}, h.held_out_loss, "#d62728"};
  write_line_chart_svg(path, {train, held_out}, {title, "step", "loss", true});
}

}  // namespace tfm
