#include "translate/saved_direction.hpp"

#include <stdexcept>

#include "tfm/machinery/command_line.hpp"

namespace translate {

std::string direction_file_text(Direction direction) {
  return std::string(direction_name(direction)) + "\n";
}

Direction direction_to_use(const tfm::CheckpointHeader& saved, const std::string& checkpoint,
                           Direction asked, bool given) {
  const auto file = saved.files.find(kDirectionFile);
  if (file == saved.files.end()) return asked;  // saved before the direction was recorded
  std::string name = file->second;
  while (!name.empty() && (name.back() == '\n' || name.back() == '\r')) name.pop_back();
  Direction trained;
  try {
    trained = parse_direction(name);
  } catch (const std::invalid_argument& e) {
    throw tfm::CheckpointError("'" + checkpoint + "/files/" + kDirectionFile + "': " + e.what());
  }
  if (given && trained != asked)
    throw tfm::UsageError(std::string("--direction ") + direction_name(asked) + ": the model of '" +
                          checkpoint + "' was trained " + direction_name(trained) +
                          " and translates only that way");
  return trained;
}

}  // namespace translate
