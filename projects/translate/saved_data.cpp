#include "translate/saved_data.hpp"

#include "translate/bpe.hpp"

namespace translate {

TranslationData saved_translation_data(const std::string& checkpoint,
                                       const tfm::CheckpointHeader& saved, SplitVerses parts,
                                       Direction direction, std::size_t longest) {
  const auto file = saved.files.find(kTokenizerFile);
  if (file == saved.files.end())
    throw tfm::CheckpointError("checkpoint '" + checkpoint + "' has no files/" + kTokenizerFile +
                               ": it was not saved by this program");
  TranslationData data(std::move(parts), direction,
                       Bpe::parse(file->second, checkpoint + "/files/" + kTokenizerFile), longest);
  tfm::require_same_vocabulary(saved.src_vocabulary, data.vocabulary(), "source");
  return data;
}

}  // namespace translate
