#include "models.hpp"

#include <sstream>
#include <stdexcept>

#include "pronounce/task.hpp"
#include "tfm/core/parameter.hpp"
#include "tfm/tasks/task.hpp"
#include "tfm/tasks/vowel_task.hpp"
#include "translate/bible.hpp"
#include "translate/saved_data.hpp"
#include "translate/saved_direction.hpp"
#include "translate/translator.hpp"
#include "translate/verse_alignment.hpp"

namespace play {

std::string PlayModel::output_text(const tfm::TokenIds& output) const {
  return tfm::generated_text(target(), output, 0);
}

std::string PlayModel::size() const {
  const tfm::Config& c = saved_.header.config;
  std::ostringstream out;
  out << "d_model " << c.d_model << ", " << c.n_heads << " heads, " << c.n_encoder_layers << " + "
      << c.n_decoder_layers << " layers, d_ff " << c.d_ff << ", "
      << tfm::parameters_of(*saved_.model).count() << " parameters";
  return out.str();
}

namespace {

// Chapter 11's vowel restoration: plain text in, read by the training text's rules, cut into
// windows of the training windows' length; every letter the input shows is kept.
class VowelModel : public PlayModel {
 public:
  VowelModel(std::shared_ptr<const tfm::VowelTask> task, tfm::SavedModel saved)
      : PlayModel(std::move(saved)), task_(std::move(task)) {}
  std::string task() const override { return "vowels"; }
  std::string purpose() const override {
    return "restores the vowels of English text (chapter 11)";
  }
  Reading read(const std::string& text) const override {
    const tfm::Config& c = saved().header.config;
    tfm::VowelTask::TypedWindows typed = task_->read_typed(text, c.src_len, c.max_len);
    return {std::move(typed.windows), std::move(typed.notes)};
  }
  tfm::TokenIds generate(const tfm::TokenIds& src, std::size_t beam) override {
    return task_->generate(model(), src, beam, /*keep_letters=*/true);
  }
  std::string window_separator() const override { return ""; }

 private:
  std::shared_ptr<const tfm::VowelTask> task_;
};

// The pronunciation project: every word of the text is one input.
class PronounceModel : public PlayModel {
 public:
  PronounceModel(std::shared_ptr<const pronounce::PronunciationTask> task, tfm::SavedModel saved)
      : PlayModel(std::move(saved)), task_(std::move(task)) {}
  std::string task() const override { return "pronounce"; }
  std::string purpose() const override {
    return "writes the phonemes of English words (projects/pronounce)";
  }
  Reading read(const std::string& text) const override {
    Reading reading;
    std::istringstream words(text);
    std::string word;
    while (words >> word)
      reading.windows.push_back(task_->data().encode_words({word}, saved().header.config.max_len));
    if (reading.windows.empty()) throw std::invalid_argument("the text has no word");
    if (reading.windows.size() > 1)
      reading.notes.push_back("pronounced word by word: " + std::to_string(reading.windows.size()) +
                              " words, one input each");
    return reading;
  }
  tfm::TokenIds generate(const tfm::TokenIds& src, std::size_t beam) override {
    return task_->generate(model(), src, beam);
  }
  std::string window_separator() const override { return " | "; }  // as --pronounce - prints

 private:
  std::shared_ptr<const pronounce::PronunciationTask> task_;
};

// The translation project: the whole text is one input, read with the checkpoint's tokenizer.
class TranslateModel : public PlayModel {
 public:
  TranslateModel(std::shared_ptr<const translate::TranslationData> data, tfm::SavedModel saved)
      : PlayModel(std::move(saved)), data_(std::move(data)) {}
  std::string task() const override { return "translate"; }
  std::string purpose() const override {
    return data_->direction() == translate::Direction::kSpanishToEnglish
               ? "translates Spanish Bible verses into English (projects/translate)"
               : "translates English Bible verses into Spanish (projects/translate)";
  }
  Reading read(const std::string& text) const override {
    Reading reading;
    const std::string note = translate::unknown_characters_note(*data_, text);
    if (!note.empty()) reading.notes.push_back(note);
    const tfm::TokenIds src = data_->encode_sources({text});
    const std::size_t max_len = saved().header.config.max_len;
    if (src.shape(1) > max_len)
      throw std::invalid_argument("the text has " + std::to_string(src.shape(1)) +
                                  " subwords but the model's positional table holds " +
                                  std::to_string(max_len));
    reading.windows.push_back(src);
    return reading;
  }
  tfm::TokenIds generate(const tfm::TokenIds& src, std::size_t beam) override {
    return translate::translation_tokens(model(), src, {beam, 0.6f, 1});
  }
  std::string output_text(const tfm::TokenIds& output) const override {
    return data_->decode(tfm::row(output, 0));
  }

 private:
  std::shared_ptr<const translate::TranslationData> data_;
};

}  // namespace

std::unique_ptr<PlayModel> load_play_model(const std::string& dir) {
  const tfm::CheckpointHeader header = tfm::read_checkpoint_header(dir);
  if (header.files.count(translate::kTokenizerFile)) {
    // The verses as the program reads them: its tokenizer's vocabulary is checked on them.
    const translate::ParallelReading reading =
        translate::read_parallel(translate::spanish_bible(), translate::english_bible());
    const translate::AlignedVerses aligned = translate::align_verses(reading.verses);
    // The direction the model was trained in (a checkpoint without one is es-en, the default).
    const translate::Direction direction = translate::direction_to_use(
        header, dir, translate::Direction::kSpanishToEnglish, /*given=*/false);
    auto data =
        std::make_shared<const translate::TranslationData>(translate::saved_translation_data(
            dir, header, translate::split_verses(aligned.pairs), direction, 120));
    return std::make_unique<TranslateModel>(
        data, tfm::load_saved_model(dir, data->vocabulary(), data->vocabulary()));
  }
  if (header.src_vocabulary.contains(std::string(1, tfm::kVowelMask))) {  // only vowels hides
    auto task = std::make_shared<const tfm::VowelTask>();
    return std::make_unique<VowelModel>(
        task, tfm::load_saved_model(dir, task->source_vocabulary(), task->target_vocabulary()));
  }
  auto task = std::make_shared<const pronounce::PronunciationTask>();
  return std::make_unique<PronounceModel>(
      task, tfm::load_saved_model(dir, task->source_vocabulary(), task->target_vocabulary()));
}

std::string training_commands() {
  return "  ./build/bin/ch11_train_test --task vowels --save vowels.ckpt   (chapter 11, ~5 min)\n"
         "  ./build/bin/pronounce --save g2p.ckpt                          (projects/pronounce)\n"
         "  ./build/bin/translate --save model                             (projects/translate)\n";
}

}  // namespace play
