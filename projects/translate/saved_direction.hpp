/// \file saved_direction.hpp
/// \brief The translation project: a checkpoint records which way its model translates, so that a
/// model trained Spanish -> English is never loaded, and scored, as English -> Spanish.
#pragma once

#include <optional>
#include <string>

#include "tfm/machinery/checkpoint.hpp"
#include "translate/translation_data.hpp"

namespace translate {

/// The name of the checkpoint's extra file that holds the direction ("es-en\n").
inline constexpr const char* kDirectionFile = "direction.txt";

/// The extra file to save with a model trained in `direction`.
std::string direction_file_text(Direction direction);

/// The direction a run uses: the one `checkpoint` (whose header is `saved`) was trained in, when
/// it records one; else `asked` (--direction, or the default). Throws tfm::UsageError when
/// --direction was `given` and contradicts the checkpoint's, and tfm::CheckpointError for a
/// damaged record.
Direction direction_to_use(const tfm::CheckpointHeader& saved, const std::string& checkpoint,
                           Direction asked, bool given);

}  // namespace translate
