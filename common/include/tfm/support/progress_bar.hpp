/// \file progress_bar.hpp
/// \brief Support (not a lesson): a training progress bar: one self-rewriting line on a terminal, plain lines otherwise.
#pragma once

#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <string>

namespace tfm {

/// What the bar shows after each step.
struct TrainingProgress {
  std::size_t step = 0;            ///< steps done, counted from the first step of the model
  std::size_t first_step = 0;      ///< steps done before this run (a resumed checkpoint's)
  std::size_t total_steps = 0;     ///< the step the budget ends at (0 if only a time budget)
  double total_seconds = 0.0;      ///< the time budget in seconds (0 if none)
  double loss = 0.0;               ///< the last step's training loss
  double learning_rate = 0.0;      ///< the rate the last step used
  double tokens_per_second = 0.0;  ///< training throughput so far
  double elapsed_seconds = 0.0;    ///< wall time since training started
};

/// One line of training progress, ending with the time elapsed < the time still to go:
///
///     [##########..........]  120/400  loss 1.234  lr 1.0e-03  5,123 tok/s  0:45 < 1:30
///
/// On a terminal the line rewrites itself (at most ten times a second); when the output is a
/// file or a pipe it prints a plain line every `plain_every` steps instead, so logs stay readable.
class ProgressBar {
 public:
  /// `interactive`: rewrite one line (a terminal) or print plain lines (anything else).
  ProgressBar(std::ostream& out, bool interactive, std::size_t plain_every = 50);

  /// Shows the state after a step.
  void update(const TrainingProgress& progress);
  /// Prints a message on its own line without breaking the bar.
  void message(const std::string& text);
  /// Ends the bar's line.
  void finish(const TrainingProgress& progress);

  /// The bar's text for a state (no control characters), e.g. for tests.
  static std::string format(const TrainingProgress& progress);

  /// Is standard output a terminal?
  static bool stdout_is_terminal();

 private:
  std::ostream& out_;
  bool interactive_;
  std::size_t plain_every_;
  bool line_open_ = false;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace tfm
