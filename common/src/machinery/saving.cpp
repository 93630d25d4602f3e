#include "tfm/machinery/saving.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <ostream>

#include "tfm/machinery/loss_history.hpp"

namespace tfm {

namespace {

// "model/" -> "model": the periodic checkpoints go beside the checkpoint, not inside it.
std::string without_trailing_slashes(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

bool is_directory(const std::string& path) {
  struct stat status {};
  return ::stat(path.c_str(), &status) == 0 && S_ISDIR(status.st_mode);
}

}  // namespace

std::function<std::string(std::size_t step, const TrainingHistory& so_far)> periodic_checkpoints(
    const std::string& prefix, const CheckpointHeader& header, const ParameterList& params,
    const Adam& optimizer) {
  return [prefix = without_trailing_slashes(prefix), header, &params, &optimizer](
             std::size_t step, const TrainingHistory& so_far) {
    const std::string dir = prefix + "-step" + std::to_string(step);
    try {
      save_checkpoint(dir, with_loss_history(header, so_far), params, &optimizer);
    } catch (const std::exception& e) {  // whatever failed, the run goes on
      return std::string("warning: ") + e.what() + "; training goes on";
    }
    return "saved " + dir;
  };
}

std::vector<std::string> rescue_places(const std::string& name) {
  std::vector<std::string> places;
  const char* tmpdir = std::getenv("TMPDIR");
  if (tmpdir && *tmpdir && is_directory(tmpdir))
    places.push_back(without_trailing_slashes(tmpdir) + "/" + name);
  places.push_back("/tmp/" + name);
  places.push_back(name);  // the current directory
  return places;
}

void save_checkpoint_or_rescue(const std::string& dir, const std::vector<std::string>& rescue_dirs,
                               const CheckpointHeader& header, const ParameterList& params,
                               const Adam* optimizer) {
  std::string failure;
  try {
    save_checkpoint(dir, header, params, optimizer);
    return;
  } catch (const std::exception& e) {  // a CheckpointError, or anything a library threw
    failure = e.what();
  }
  std::string rescue_failures;
  for (const std::string& rescue_dir : rescue_dirs) {
    try {
      save_checkpoint(rescue_dir, header, params, optimizer);
    } catch (const std::exception& rescue_error) {
      rescue_failures +=
          "; saving to '" + rescue_dir + "' instead failed too: " + rescue_error.what();
      continue;
    }
    throw CheckpointError(failure + rescue_failures + "; the model was saved to '" + rescue_dir +
                          "' instead");
  }
  throw CheckpointError(failure + rescue_failures);
}

void save_trained_model(const std::string& program, const std::string& dir,
                        const TrainingHistory& history, const CheckpointHeader& header,
                        const ParameterList& params, const Adam* optimizer, std::ostream& out) {
  const bool stopped = history.stopped;
  if (dir.empty() && !stopped) return;
  const std::string pid = std::to_string(::getpid());
  // Without --save, a stopped run goes to the first of the temporary places that takes it.
  std::vector<std::string> rescues =
      rescue_places(program + (dir.empty() ? "-stopped-" : "-rescued-") + pid);
  const std::string where = dir.empty() ? rescues.front() : dir;
  if (dir.empty()) rescues.erase(rescues.begin());
  save_checkpoint_or_rescue(where, rescues, with_loss_history(header, history), params, optimizer);
  out << "saved " << where << "\n";
  if (stopped) out << "training was stopped; go on with --load " << where << " --steps N\n";
}

}  // namespace tfm
