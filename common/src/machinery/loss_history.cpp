#include "tfm/machinery/loss_history.hpp"

#include <cmath>
#include <cstdlib>
#include <ostream>
#include <sstream>
#include <vector>

namespace tfm {

namespace {

constexpr const char* kHeader = "# tfm loss history v1: kind, step, loss";

void write_rows(std::ostringstream& out, const char* kind, const std::vector<std::size_t>& steps,
                const std::vector<double>& losses) {
  for (std::size_t i = 0; i < steps.size(); ++i)
    out << kind << '\t' << steps[i] << '\t' << losses[i] << '\n';
}

}  // namespace

std::string loss_history_text(const TrainingHistory& history) {
  std::ostringstream out;
  out.precision(9);  // a float's loss, to its last bit
  out << kHeader << '\n';
  write_rows(out, "train", history.steps, history.train_loss);
  write_rows(out, "held-out", history.eval_steps, history.held_out_loss);
  return out.str();
}

TrainingHistory parse_loss_history(const std::string& text, const std::string& where) {
  TrainingHistory history;
  std::istringstream in(text);
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    const auto refuse = [&](const std::string& what) {
      return CheckpointError(where + " line " + std::to_string(number) + ": " + what);
    };
    if (number == 1) {
      if (line != kHeader) throw refuse("expected the header '" + std::string(kHeader) + "'");
      continue;
    }
    std::istringstream fields(line);
    std::string kind, step_text, loss_text, extra;
    if (!std::getline(fields, kind, '\t') || !std::getline(fields, step_text, '\t') ||
        !std::getline(fields, loss_text, '\t') || std::getline(fields, extra, '\t'))
      throw refuse("expected 'train' or 'held-out', a step and a loss, separated by tabs");
    char* end = nullptr;
    const unsigned long long step = std::strtoull(step_text.c_str(), &end, 10);
    if (step_text.empty() || *end != '\0' || step == 0 || step_text[0] == '-')
      throw refuse("the step '" + step_text + "' is not a whole number from 1");
    const double loss = std::strtod(loss_text.c_str(), &end);
    if (loss_text.empty() || *end != '\0' || !std::isfinite(loss))
      throw refuse("the loss '" + loss_text + "' is not a finite number");
    std::vector<std::size_t>* steps = nullptr;
    std::vector<double>* losses = nullptr;
    if (kind == "train") {
      steps = &history.steps;
      losses = &history.train_loss;
    } else if (kind == "held-out") {
      steps = &history.eval_steps;
      losses = &history.held_out_loss;
    } else {
      throw refuse("unknown kind '" + kind + "' (expected 'train' or 'held-out')");
    }
    if (!steps->empty() && step <= steps->back())
      throw refuse("step " + step_text + " comes after step " + std::to_string(steps->back()));
    steps->push_back(static_cast<std::size_t>(step));
    losses->push_back(loss);
  }
  if (number == 0) throw CheckpointError(where + " is empty (expected '" + kHeader + "')");
  return history;
}

TrainingHistory saved_loss_history(const CheckpointHeader& header) {
  const auto file = header.files.find(kLossHistoryFile);
  if (file == header.files.end()) return {};
  return parse_loss_history(file->second,
                            std::string("the checkpoint's files/") + kLossHistoryFile);
}

TrainingHistory joined(TrainingHistory earlier, const TrainingHistory& later) {
  // A run resumed from an earlier step checkpoint repeats steps the history already has: from
  // its first step on, the later run's losses replace them.
  if (later.steps.empty()) return earlier;
  const std::size_t first = later.steps.front();
  const auto cut = [first](std::vector<std::size_t>& steps, std::vector<double>& losses) {
    std::size_t keep = 0;
    while (keep < steps.size() && steps[keep] < first) ++keep;
    steps.resize(keep);
    losses.resize(keep);
  };
  cut(earlier.steps, earlier.train_loss);
  cut(earlier.eval_steps, earlier.held_out_loss);
  earlier.steps.insert(earlier.steps.end(), later.steps.begin(), later.steps.end());
  earlier.train_loss.insert(earlier.train_loss.end(), later.train_loss.begin(),
                            later.train_loss.end());
  earlier.eval_steps.insert(earlier.eval_steps.end(), later.eval_steps.begin(),
                            later.eval_steps.end());
  earlier.held_out_loss.insert(earlier.held_out_loss.end(), later.held_out_loss.begin(),
                               later.held_out_loss.end());
  earlier.tokens += later.tokens;
  earlier.seconds += later.seconds;
  earlier.stopped = later.stopped;
  return earlier;
}

void keep_loss_history(const CheckpointHeader& saved, const std::string& dir,
                       CheckpointHeader& header, std::ostream& out) {
  const auto file = saved.files.find(kLossHistoryFile);
  if (file == saved.files.end()) return;
  try {
    parse_loss_history(file->second, dir + "/files/" + kLossHistoryFile);
    header.files[kLossHistoryFile] = file->second;
  } catch (const CheckpointError& e) {
    out << "warning: " << e.what() << "; the loss curve starts at this run\n";
  }
}

CheckpointHeader with_loss_history(CheckpointHeader header, const TrainingHistory& this_run) {
  const TrainingHistory all = joined(saved_loss_history(header), this_run);
  if (!all.steps.empty() || !all.eval_steps.empty())
    header.files[kLossHistoryFile] = loss_history_text(all);
  return header;
}

}  // namespace tfm
