/// \file saved_data.hpp
/// \brief The translation project: the data of a saved model — the verses cut as training cut
/// them, read with the tokenizer the checkpoint keeps — so that `--load` (and the playground)
/// read text exactly as training did.
#pragma once

#include <cstddef>
#include <string>

#include "tfm/machinery/checkpoint.hpp"
#include "translate/translation_data.hpp"
#include "translate/verse_split.hpp"

namespace translate {

/// The checkpoint's extra file that holds the tokenizer (`files/tokenizer.txt`).
inline constexpr const char* kTokenizerFile = "tokenizer.txt";

/// The data of the checkpoint in `checkpoint`, whose header is `saved`: `parts` read with its
/// tokenizer. Throws tfm::CheckpointError naming the checkpoint if it has no tokenizer (it was
/// not saved by the translation program) or if the tokenizer's vocabulary is not the model's.
TranslationData saved_translation_data(const std::string& checkpoint,
                                       const tfm::CheckpointHeader& saved, SplitVerses parts,
                                       Direction direction, std::size_t longest);

}  // namespace translate
