#include "tfm/tasks/translation_task.hpp"

#include "tfm/decode/beam_search.hpp"

namespace tfm {

TranslationTask::TranslationTask()
    : Task("translate", ToyTranslation().source_vocabulary(), ToyTranslation().target_vocabulary(),
           ToyTranslation().src_len(), ToyTranslation().tgt_len(), preset("toy"), kDefaultSteps) {
  set_held_out({data_.all()});
}

Batch TranslationTask::training_batch(std::size_t, std::size_t, std::uint64_t) const {
  return data_.all();
}

TokenIds TranslationTask::generate(Transformer& model, const TokenIds& src,
                                   std::size_t beam) const {
  return tfm::generate(model, src, beam, {});
}

}  // namespace tfm
