#include "pronounce/task.hpp"

#include <algorithm>
#include <iostream>
#include <sstream>

#include "tfm/decode/beam_search.hpp"
#include "tfm/tasks/text_lines.hpp"

namespace pronounce {

namespace {

// Chapter 11's vowels-small model and recipe, on batches of 128 words; the vocabularies and
// lengths come from the dictionary (Task::fit).
tfm::Config pronounce_model() {
  tfm::Config model = tfm::preset("vowels-small");
  model.preset = "pronounce";
  model.batch_size = 128;
  return model;
}

}  // namespace

PronunciationTask::PronunciationTask(const std::string& dictionary)
    : PronunciationTask(
          std::make_shared<const PronunciationData>(PronunciationData::from_file(dictionary))) {}

// [pronounce task]
PronunciationTask::PronunciationTask(std::shared_ptr<const PronunciationData> data)
    : Task("pronounce", data->letters(), data->phonemes(), data->max_letters(),
           data->max_phonemes() + 1 /* <bos> / <eos> */, pronounce_model(), 1200),
      data_(std::move(data)) {
  // The held-out loss: the first 512 held-out words (of about 5,000), 128 per batch.
  std::vector<tfm::Batch> held_out;
  const std::size_t words = std::min<std::size_t>(512, data_->words(WordSplit::kHeldOut).size());
  for (std::size_t first = 0; first < words; first += 128)
    held_out.push_back(data_->batch(WordSplit::kHeldOut, first, 128));
  set_held_out(std::move(held_out));
}
// [pronounce task]

tfm::Batch PronunciationTask::training_batch(std::size_t index, std::size_t batch_size,
                                             std::uint64_t seed) const {
  return data_->training_batch(index, batch_size, seed);
}

tfm::TokenIds PronunciationTask::generate(tfm::Transformer& model, const tfm::TokenIds& src,
                                          std::size_t beam) const {
  tfm::DecodeOptions options;
  options.max_steps = model.config().tgt_len;
  options.free_choices = {tfm::kEosId};  // a phoneme or <eos>
  for (auto id = tfm::kFirstSymbolId; id < static_cast<std::int32_t>(target_vocabulary().size());
       ++id)
    options.free_choices.push_back(id);
  return tfm::generate(model, src, beam, options);
}

std::vector<std::string> PronunciationTask::pronounce(tfm::Transformer& model,
                                                      const std::vector<std::string>& words,
                                                      std::size_t beam) const {
  const tfm::TokenIds src = data_->encode_words(words, model.config().max_len);
  const tfm::TokenIds out = generate(model, src, beam);
  std::vector<std::string> phonemes;
  for (std::size_t b = 0; b < words.size(); ++b) {
    std::string text = tfm::generated_text(target_vocabulary(), out, b);
    // Decoding stops after as many phonemes as the longest pronunciation trained on: a word that
    // needs more (or a model that never ends it) would be cut off silently without this note.
    if (!tfm::row_ended(out, b))
      text += "  (cut off at " + std::to_string(out.shape(1)) +
              " phonemes, the most the model writes: it did not end the word)";
    phonemes.push_back(text);
  }
  return phonemes;
}

std::size_t pronounce_lines(std::istream& in, tfm::Transformer& model,
                            const PronunciationTask& task, std::size_t beam,
                            const std::string& attention_dir) {
  return tfm::answer_lines(
      in, std::cout, std::cerr, "--pronounce -", model, task.source_vocabulary(),
      task.target_vocabulary(),
      [&](const std::string& line) {
        std::istringstream split(line);
        std::vector<std::string> words;
        for (std::string word; split >> word;) words.push_back(word);
        tfm::LineAnswer answer;
        for (const std::string& phonemes : task.pronounce(model, words, beam))
          answer.output += (answer.output.empty() ? "" : " | ") + phonemes;
        answer.src = task.data().encode_words({words.back()}, model.config().max_len);
        answer.generated = task.generate(model, answer.src, beam);
        return answer;
      },
      attention_dir);
}

}  // namespace pronounce
