#include "tfm/tasks/vowel_task.hpp"

#include <algorithm>
#include <iostream>

#include "tfm/decode/beam_search.hpp"
#include "tfm/tasks/text_lines.hpp"

namespace tfm {

namespace {

// The held-out batches of the held-out loss: up to 512 windows, 128 per batch.
std::vector<Batch> held_out_batches(const VowelRestoration& data) {
  const std::vector<std::size_t> windows = held_out_windows(data, 512);
  std::vector<Batch> batches;
  for (std::size_t i = 0; i < windows.size(); i += 128) {
    const auto end =
        windows.begin() + static_cast<std::ptrdiff_t>(std::min(windows.size(), i + 128));
    batches.push_back(
        data.batch(Split::kHeldOut, {windows.begin() + static_cast<std::ptrdiff_t>(i), end}));
  }
  return batches;
}

}  // namespace

VowelTask::VowelTask(const std::string& corpus)
    : VowelTask(std::make_shared<const VowelRestoration>(VowelRestoration::from_file(corpus))) {}

VowelTask::VowelTask(std::shared_ptr<const VowelRestoration> data)
    : Task("vowels", data->vocabulary(), data->vocabulary(), data->options().window,
           data->options().window, preset("vowels-tiny"), kDefaultSteps),
      data_(std::move(data)) {
  set_held_out(held_out_batches(*data_));
}

Batch VowelTask::training_batch(std::size_t index, std::size_t batch_size,
                                std::uint64_t seed) const {
  Stream& s = stream_;
  if (!s.sampler || seed != s.seed || batch_size != s.batch_size || index < s.next) {
    s.sampler = std::make_unique<BatchSampler>(data_->num_windows(Split::kTrain), batch_size,
                                               Order::kShuffled, seed);
    s.seed = seed;
    s.batch_size = batch_size;
    s.next = 0;
  }
  s.sampler->skip(index - s.next);
  s.next = index + 1;
  return data_->batch(Split::kTrain, s.sampler->next());
}

TokenIds VowelTask::generate(Transformer& model, const TokenIds& src, std::size_t beam) const {
  return generate(model, src, beam, true);
}

// [vowel generate]
TokenIds VowelTask::generate(Transformer& model, const TokenIds& src, std::size_t beam,
                             bool keep_letters) const {
  DecodeOptions options;
  options.max_steps = src.shape(1);
  options.stop_at_eos = false;  // the output has the input's length
  if (keep_letters) {
    options.forced = vowel_forcing(src, source_vocabulary(), target_vocabulary());
    options.free_choices = vowel_ids(target_vocabulary());  // a `*` hides a vowel, nothing else
  }
  return tfm::generate(model, src, beam, options);
}
// [vowel generate]

std::string VowelTask::restore(Transformer& model, const std::string& text, std::size_t beam,
                               bool keep_letters) const {
  const TokenIds src = restore_source_ids(source_vocabulary(), text, model.config().max_len);
  return generated_text(target_vocabulary(), generate(model, src, beam, keep_letters), 0);
}

VowelTask::TypedWindows VowelTask::read_typed(const std::string& typed, std::size_t window,
                                              std::size_t max_len) const {
  const TypedText text = read_typed_text(typed);
  if (text.masked.empty()) throw std::invalid_argument("the text has no letter a-z to read");
  TypedWindows read{{}, text.notes};
  const std::vector<std::string> windows = text_windows(text.masked, window);
  for (const std::string& part : windows)
    read.windows.push_back(restore_source_ids(source_vocabulary(), part, max_len));
  if (windows.size() > 1)
    read.notes.push_back("cut into " + std::to_string(windows.size()) + " windows of at most " +
                         std::to_string(window) +
                         " characters, the length the model was trained on");
  return read;
}

std::string VowelTask::restore_typed(Transformer& model, const TypedWindows& typed,
                                     std::size_t beam) const {
  std::string restored;
  for (const TokenIds& src : typed.windows)
    restored += generated_text(target_vocabulary(), generate(model, src, beam, true), 0);
  return restored;
}

std::size_t restore_lines(std::istream& in, Transformer& model, const VowelTask& task,
                          std::size_t beam, const std::string& attention_dir) {
  const Config& config = model.config();
  return answer_lines(
      in, std::cout, std::cerr, "--restore -", model, task.source_vocabulary(),
      task.target_vocabulary(),
      [&](const std::string& line) {
        const VowelTask::TypedWindows typed = task.read_typed(line, config.src_len, config.max_len);
        LineAnswer answer{
            task.restore_typed(model, typed, beam), typed.notes, typed.windows.back(), {}};
        answer.generated = task.generate(model, answer.src, beam, true);
        return answer;
      },
      attention_dir);
}

}  // namespace tfm
