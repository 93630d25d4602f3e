#include "tfm/support/progress_bar.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

namespace tfm {
namespace {

std::string clock_text(double seconds) {
  const long total = std::lround(std::max(0.0, seconds));
  char buf[32];
  if (total >= 3600)
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", total / 3600, total / 60 % 60, total % 60);
  else
    std::snprintf(buf, sizeof buf, "%ld:%02ld", total / 60, total % 60);
  return buf;
}

std::string thousands(double value) {
  std::string digits = std::to_string(std::lround(value));
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3)
    digits.insert(static_cast<std::size_t>(i), ",");
  return digits;
}

// Fraction of this run done, from the step budget or the time budget, whichever is further along.
// A resumed run counts from its first step: the time per step it measures is its own.
double fraction_done(const TrainingProgress& p) {
  double f = 0.0;
  if (p.total_steps > p.first_step)
    f = static_cast<double>(p.step - p.first_step) /
        static_cast<double>(p.total_steps - p.first_step);
  if (p.total_seconds > 0) f = std::max(f, p.elapsed_seconds / p.total_seconds);
  return std::clamp(f, 0.0, 1.0);
}

}  // namespace

ProgressBar::ProgressBar(std::ostream& out, bool interactive, std::size_t plain_every)
    : out_(out), interactive_(interactive), plain_every_(std::max<std::size_t>(1, plain_every)) {}

std::string ProgressBar::format(const TrainingProgress& p) {
  const double done = fraction_done(p);
  const int width = 24, filled = static_cast<int>(done * width);
  std::string bar = "[" + std::string(static_cast<std::size_t>(filled), '#') +
                    std::string(static_cast<std::size_t>(width - filled), '.') + "]";
  char text[160];
  std::snprintf(text, sizeof text, "  loss %.4f  lr %.1e  %s tok/s  %s", p.loss, p.learning_rate,
                thousands(p.tokens_per_second).c_str(), clock_text(p.elapsed_seconds).c_str());
  std::string steps = " step " + std::to_string(p.step);
  if (p.total_steps > 0) steps += "/" + std::to_string(p.total_steps);
  std::string eta;
  if (done > 0.0 && done < 1.0) eta = " < " + clock_text(p.elapsed_seconds * (1.0 - done) / done);
  return bar + steps + text + eta;
}

void ProgressBar::update(const TrainingProgress& p) {
  if (!interactive_) {
    if (p.step % plain_every_ == 0) out_ << format(p) << '\n' << std::flush;
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  if (line_open_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  // \r returns to the start of the line, \033[K clears what a longer previous line left.
  out_ << '\r' << format(p) << "\033[K" << std::flush;
  line_open_ = true;
}

void ProgressBar::message(const std::string& text) {
  if (line_open_) out_ << '\r' << "\033[K";
  out_ << text << '\n' << std::flush;
  line_open_ = false;
}

void ProgressBar::finish(const TrainingProgress& p) {
  if (interactive_) {
    out_ << '\r' << format(p) << "\033[K\n" << std::flush;
  } else if (p.step % plain_every_ != 0) {
    out_ << format(p) << '\n' << std::flush;
  }
  line_open_ = false;
}

bool ProgressBar::stdout_is_terminal() {
  return isatty(STDOUT_FILENO) != 0;
}

}  // namespace tfm
