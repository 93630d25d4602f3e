#include "tfm/train/task.hpp"

#include <algorithm>
#include <stdexcept>

#include "tfm/core/random.hpp"
#include "tfm/data/copy_task.hpp"
#include "tfm/data/toy_translation.hpp"
#include "tfm/decode/beam_search.hpp"
#include "tfm/decode/decoding.hpp"

namespace tfm {

namespace {

// The held-out batches of the vowel task's held-out loss: up to 512 windows, 128 per batch.
std::vector<Batch> vowel_held_out_batches(const VowelRestoration& data) {
  const std::vector<std::size_t> windows = held_out_windows(data, 512);
  std::vector<Batch> batches;
  for (std::size_t i = 0; i < windows.size(); i += 128) {
    const auto end = windows.begin() + static_cast<std::ptrdiff_t>(std::min(windows.size(), i + 128));
    batches.push_back(data.batch(Split::kHeldOut, {windows.begin() + static_cast<std::ptrdiff_t>(i), end}));
  }
  return batches;
}

Task copy_task() {
  const auto data = std::make_shared<CopyTask>(10, 10);
  Task t{"copy", data->vocabulary(), data->vocabulary()};
  t.src_len = data->length();
  t.tgt_len = data->length() + 1;  // <bos> / <eos>
  t.model = t.fit(preset("toy"));
  t.default_steps = 1000;
  Rng held_out_rng(0x5EED);  // a generator no training run is seeded with
  for (int i = 0; i < 4; ++i) t.held_out.push_back(data->batch(t.model.batch_size, held_out_rng));
  // The batches are drawn one after the other from one generator: batch `index` is the one
  // drawn after `index` others (of the same size), so a jump forward draws and drops the ones
  // in between, and a jump back (or another seed or size) starts the generator again.
  struct Stream {
    Rng rng;
    std::uint64_t seed = 0;
    std::size_t batch_size = 0, next = 0;
  };
  const auto stream = std::make_shared<Stream>(Stream{Rng(0), 0, 0, 0});
  t.training_batch = [data, stream](std::size_t index, std::size_t batch_size, std::uint64_t seed) {
    if (index < stream->next || seed != stream->seed || batch_size != stream->batch_size)
      *stream = Stream{Rng(seed), seed, batch_size, 0};
    for (; stream->next < index; ++stream->next) data->batch(batch_size, stream->rng);
    ++stream->next;
    return data->batch(batch_size, stream->rng);
  };
  return t;
}

Task translate_task() {
  const auto data = std::make_shared<ToyTranslation>();
  Task t{"translate", data->source_vocabulary(), data->target_vocabulary()};
  t.src_len = data->src_len();
  t.tgt_len = data->tgt_len();
  t.model = t.fit(preset("toy"));
  t.default_steps = 100;
  t.held_out = {data->all()};  // two sentence pairs: there is nothing else to hold out
  t.training_batch = [data](std::size_t, std::size_t, std::uint64_t) { return data->all(); };  // both pairs
  return t;
}

Task vowel_task(const std::string& corpus) {
  const auto data = std::make_shared<const VowelRestoration>(VowelRestoration::from_file(corpus));
  Task t{"vowels", data->vocabulary(), data->vocabulary()};
  t.vowels = data;
  t.src_len = t.tgt_len = data->options().window;
  t.model = t.fit(preset("vowels-small"));
  t.default_steps = 1600;
  t.held_out = vowel_held_out_batches(*data);
  // Shuffled windows, dealt out in batches; batch `index` is where the sampler stands after
  // `index` batches, which BatchSampler::skip reaches without drawing them.
  struct Stream {
    std::unique_ptr<BatchSampler> sampler;
    std::uint64_t seed = 0;
    std::size_t batch_size = 0, next = 0;
  };
  const auto stream = std::make_shared<Stream>();
  t.training_batch = [data, stream](std::size_t index, std::size_t batch_size, std::uint64_t seed) {
    if (!stream->sampler || seed != stream->seed || batch_size != stream->batch_size || index < stream->next) {
      stream->sampler = std::make_unique<BatchSampler>(data->num_windows(Split::kTrain), batch_size,
                                                       Order::kShuffled, seed);
      stream->seed = seed;
      stream->batch_size = batch_size;
      stream->next = 0;
    }
    stream->sampler->skip(index - stream->next);
    stream->next = index + 1;
    return data->batch(Split::kTrain, stream->sampler->next());
  };
  return t;
}

// [pronounce task]
Task pronounce_task(const std::string& dictionary) {
  const auto data = std::make_shared<const PronunciationData>(PronunciationData::from_file(dictionary));
  Task t{"pronounce", data->letters(), data->phonemes()};
  t.pronunciations = data;
  t.src_len = data->max_letters();
  t.tgt_len = data->max_phonemes() + 1;  // <bos> / <eos>
  t.model = t.fit(preset("pronounce"));
  t.default_steps = 1200;
  // The held-out loss: the first 512 dev words (of about 5,000), 128 per batch.
  for (std::size_t first = 0; first < std::min<std::size_t>(512, data->words(WordSplit::kDev).size()); first += 128)
    t.held_out.push_back(data->batch(WordSplit::kDev, first, 128));
  t.training_batch = [data](std::size_t index, std::size_t batch_size, std::uint64_t seed) {
    return data->training_batch(index, batch_size, seed);
  };
  return t;
}
// [pronounce task]

}  // namespace

Config Task::fit(Config config) const {
  config.src_vocab_size = src_vocabulary.size();
  config.tgt_vocab_size = tgt_vocabulary.size();
  config.src_len = src_len;
  config.tgt_len = tgt_len;
  return config;
}

const std::vector<std::string>& Task::data_keys() {
  static const std::vector<std::string> keys = {"src_vocab_size", "tgt_vocab_size", "src_len",
                                                "tgt_len"};
  return keys;
}

const std::vector<std::string>& task_names() {
  static const std::vector<std::string> names = {"copy", "translate", "vowels", "pronounce"};
  return names;
}

Task make_task(const std::string& name, const std::string& corpus, const std::string& dictionary) {
  if (name == "copy") return copy_task();
  if (name == "translate") return translate_task();
  if (name == "vowels") return vowel_task(corpus);
  if (name == "pronounce") return pronounce_task(dictionary);
  throw std::invalid_argument("--task must be copy, translate, vowels or pronounce, got '" + name + "'");
}

std::string decoded_text(const Vocabulary& vocabulary, const TokenIds& tokens, std::size_t row) {
  std::vector<std::int32_t> ids;
  for (std::size_t t = 0; t < tokens.shape(1); ++t) {
    const std::int32_t id = tokens(row, t);
    if (ends_text(id)) break;
    ids.push_back(id);
  }
  return vocabulary.decode(ids);
}

bool row_ended(const TokenIds& tokens, std::size_t row) {
  for (std::size_t t = 0; t < tokens.shape(1); ++t)
    if (ends_text(tokens(row, t))) return true;
  return false;
}

// [decode]
TokenIds decode(Transformer& model, const Task& task, const TokenIds& src, std::size_t beam,
                bool keep_letters) {
  BeamOptions options;
  if (task.name == "vowels") {
    options.max_steps = src.shape(1);
    options.stop_at_eos = false;  // the output has the input's length
    if (keep_letters) {
      options.forced = vowel_forcing(src, task.src_vocabulary, task.tgt_vocabulary);
      options.free_choices = vowel_ids(task.tgt_vocabulary);  // a `*` hides a vowel, nothing else
    }
  } else {
    options.max_steps = model.config().tgt_len;
    if (task.pronunciations) {  // a phoneme or <eos>: never <pad>, <bos> or <unk>
      options.free_choices = {kEosId};
      for (std::int32_t id = kFirstSymbolId; id < static_cast<std::int32_t>(task.tgt_vocabulary.size()); ++id)
        options.free_choices.push_back(id);
    }
  }
  if (beam <= 1) return greedy_decode(model, src, options).tokens;
  options.beam_size = beam;
  return beam_search(model, src, options).best_tokens();
}
// [decode]

}  // namespace tfm
