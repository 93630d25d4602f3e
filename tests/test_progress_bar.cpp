// The training progress bar (chapter 11): what one line shows, plain lines for logs, and a
// self-rewriting line for terminals. Written to an ostringstream, so every byte can be checked.
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <sstream>
#include <string>
#include <thread>

#include "tfm/support/progress_bar.hpp"

using namespace tfm;

namespace {

TrainingProgress at_step(std::size_t step, std::size_t total) {
  TrainingProgress p;
  p.step = step;
  p.total_steps = total;
  p.loss = 1.2345;
  p.learning_rate = 1e-3;
  p.tokens_per_second = 5123.4;
  p.elapsed_seconds = 45.0;
  return p;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + what.size()))
    ++n;
  return n;
}

}  // namespace

TEST_CASE("progress bar: format shows step/total, loss, rate, throughput, elapsed and ETA",
          "[progress_bar]") {
  // 120 of 400 steps in 45 s: 30 % done (7 of 24 marks), 45 s x 0.7 / 0.3 = 1:45 to go.
  CHECK(
      ProgressBar::format(at_step(120, 400)) ==
      "[#######.................] step 120/400  loss 1.2345  lr 1.0e-03  5,123 tok/s  0:45 < 1:45");

  // Done: a full bar and no ETA.
  const std::string done = ProgressBar::format(at_step(400, 400));
  CHECK(done.find("[########################] step 400/400") == 0);
  CHECK(done.find('<') == std::string::npos);
  // Not started: an empty bar and no ETA (nothing to extrapolate from).
  const std::string start = ProgressBar::format(at_step(0, 400));
  CHECK(start.find("[........................] step 0/400") == 0);
  CHECK(start.find('<') == std::string::npos);
}

TEST_CASE("progress bar: format follows a time budget and prints hours and large throughputs",
          "[progress_bar]") {
  // Only a time budget: the step has no total; 150 s of 600 is 25 % done, 450 s = 7:30 to go.
  TrainingProgress p = at_step(80, 0);
  p.total_seconds = 600.0;
  p.elapsed_seconds = 150.0;
  const std::string line = ProgressBar::format(p);
  CHECK(line.find("[######..................] step 80  loss") == 0);
  CHECK(line.find("2:30 < 7:30") != std::string::npos);

  // Both budgets: the bar follows whichever is further along (here the steps, 50 %).
  p.total_steps = 160;
  CHECK(ProgressBar::format(p).find("[############............] step 80/160") == 0);

  p = at_step(10, 20);
  p.elapsed_seconds = 3725.0;       // 1 h 2 min 5 s
  p.tokens_per_second = 1234567.0;  // thousands separated
  p.learning_rate = 6.99e-4;
  const std::string long_run = ProgressBar::format(p);
  CHECK(long_run.find("1:02:05 < 1:02:05") != std::string::npos);
  CHECK(long_run.find("1,234,567 tok/s") != std::string::npos);
  CHECK(long_run.find("lr 7.0e-04") != std::string::npos);
}

TEST_CASE("progress bar: plain mode prints one line every N steps, and the last state once",
          "[progress_bar]") {
  std::ostringstream out;
  ProgressBar bar(out, false, 10);
  for (std::size_t step = 1; step <= 25; ++step) bar.update(at_step(step, 25));
  CHECK(count(out.str(), "\n") == 2);
  CHECK(out.str().find("step 10/25") != std::string::npos);
  CHECK(out.str().find("step 20/25") != std::string::npos);
  bar.message("step 25: held-out loss 1.1");
  bar.finish(at_step(25, 25));
  const std::string log = out.str();
  CHECK(count(log, "\n") == 4);
  CHECK(log.find("step 25: held-out loss 1.1\n") != std::string::npos);
  CHECK(log.substr(log.rfind("[")).find("step 25/25") != std::string::npos);
  CHECK(log.find('\r') == std::string::npos);  // no control characters in a log file
  CHECK(log.find('\033') == std::string::npos);

  // A run that ends on a printed step is not printed twice.
  std::ostringstream exact;
  ProgressBar bar20(exact, false, 10);
  for (std::size_t step = 1; step <= 20; ++step) bar20.update(at_step(step, 20));
  bar20.finish(at_step(20, 20));
  CHECK(count(exact.str(), "step 20/20") == 1);
}

TEST_CASE("progress bar: interactive mode rewrites one line with \\r", "[progress_bar]") {
  std::ostringstream out;
  ProgressBar bar(out, true);
  bar.update(at_step(1, 100));
  CHECK(out.str() == "\r" + ProgressBar::format(at_step(1, 100)) + "\033[K");
  CHECK(out.str().find('\n') == std::string::npos);

  // Redrawn at most ten times a second: after 150 ms the next step draws again.
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  bar.update(at_step(2, 100));
  CHECK(count(out.str(), "\r") == 2);
  CHECK(out.str().find("step 2/100") != std::string::npos);

  // A message clears the bar's line and ends its own; finish draws the final state and ends the
  // line.
  bar.message("held-out loss 1.5");
  CHECK(out.str().find("\r\033[Kheld-out loss 1.5\n") != std::string::npos);
  bar.finish(at_step(100, 100));
  const std::string all = out.str();
  REQUIRE_FALSE(all.empty());
  CHECK(all.back() == '\n');
  CHECK(all.find("\r" + ProgressBar::format(at_step(100, 100)) + "\033[K\n") != std::string::npos);
}
