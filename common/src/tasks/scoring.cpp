#include "tfm/tasks/scoring.hpp"

#include <algorithm>
#include <stdexcept>

#include "tfm/core/no_grad.hpp"
#include "tfm/decode/decoding.hpp"
#include "tfm/layers/softmax.hpp"
#include "tfm/tasks/vowel_restoration.hpp"

namespace tfm {

namespace {

// Reference 002's three test inputs, what it printed, and what they should say.
struct ReferenceExample {
  const char* input;
  const char* reference_output;
  const char* expected;
};
const ReferenceExample kReferenceExamples[] = {
    {"th* t*m* tr*v*ll*r s*t d*wn", "the time trave traveller sa", "the time traveller sat down"},
    {"h* m*d* * w*nd*rf*l d*sc*v*ry", "he made i wonderful discovery",
     "he made a wonderful discovery"},
    {"*t w*s * d*rk *nd st*rmy n*ght", "it was a a dark andark and sto",
     "it was a dark and stormy night"},
};

}  // namespace

SequenceScores score_sequences(Transformer& model, const Task& task, std::size_t beam) {
  SequenceScores result;
  for (const Batch& batch : task.held_out()) {
    const TokenIds out = task.generate(model, batch.src, beam);
    for (std::size_t b = 0; b < batch.size(); ++b, ++result.total) {
      const std::string got = generated_text(task.target_vocabulary(), out, b);
      const std::string want = generated_text(task.target_vocabulary(), batch.tgt_out, b);
      result.exact += got == want;
      if (result.examples.size() < 3 && &batch == &task.held_out().front())
        result.examples.push_back(
            {generated_text(task.source_vocabulary(), batch.src, b), got, want});
    }
  }
  return result;
}

namespace {

std::string training_text(const VowelTask& task) {
  const VowelRestoration& data = task.data();
  return data.text().substr(0, data.boundary());
}

// The counting rules of the results table, fitted on the task's training text.
std::vector<VowelBaseline> fitted_baselines(const std::string& train_text) {
  std::vector<VowelBaseline> rules = {VowelBaseline::most_frequent(train_text)};
  for (std::size_t letters = 1; letters <= 3; ++letters)
    rules.push_back(VowelBaseline::with_context(train_text, letters));
  return rules;
}

// The windows `chosen` of part `split` of `data` (the task's text, or another one), restored
// by the model (both decodings) and by every rule, 64 windows at a time.
VowelScores score_windows(Transformer& model, const VowelTask& task, const VowelRestoration& data,
                          Split split, const std::vector<std::size_t>& chosen, std::size_t beam) {
  const std::string train_text = training_text(task);
  const std::vector<VowelBaseline> rules = fitted_baselines(train_text);
  VowelScores result;
  result.window_length = data.options().window;
  result.model.name = "this model, letters of the input kept (default)";
  result.model_free.name = "this model, free decoding";
  for (const VowelBaseline& rule : rules)
    result.baselines.push_back({"baseline: " + rule.name(), {}});

  result.windows = chosen.size();
  for (std::size_t i = 0; i < chosen.size(); i += 64) {
    const std::vector<std::size_t> chunk(
        chosen.begin() + static_cast<std::ptrdiff_t>(i),
        chosen.begin() + static_cast<std::ptrdiff_t>(std::min(chosen.size(), i + 64)));
    const Batch batch = data.batch(split, chunk);
    const TokenIds kept = task.generate(model, batch.src, beam, true);
    const TokenIds free = task.generate(model, batch.src, beam, false);
    for (std::size_t b = 0; b < chunk.size(); ++b) {
      const std::string truth = data.window(split, chunk[b]);
      const std::string masked = mask_vowels(truth);
      result.model.score.add(masked, generated_text(task.target_vocabulary(), kept, b), truth);
      result.model_free.score.add(masked, generated_text(task.target_vocabulary(), free, b), truth);
      for (std::size_t r = 0; r < rules.size(); ++r)
        result.baselines[r].score.add(masked, rules[r].restore(masked), truth);
    }
  }
  return result;
}

}  // namespace

std::vector<VowelChoice> vowel_choices(Transformer& model, const VowelTask& task,
                                       const std::string& input, const std::string& expected) {
  if (mask_vowels(expected) != input)
    throw std::invalid_argument("vowel_choices: \"" + expected +
                                "\" with its vowels hidden is not \"" + input + "\"");
  const std::size_t max_len = model.config().max_len;
  const TokenIds src = restore_source_ids(task.source_vocabulary(), input, max_len);
  const TokenIds truth = restore_source_ids(task.target_vocabulary(), expected, max_len);
  const EvaluationMode evaluation(model);
  const NoGrad no_grad;
  const Tensor3 logits = model.forward(src, shifted_right(truth));  // [1, T, tgt_vocab]
  const std::vector<std::int32_t> vowels = vowel_ids(task.target_vocabulary());
  std::vector<VowelChoice> choices;
  for (std::size_t t = 0; t < input.size(); ++t) {
    if (input[t] != '*') continue;
    // Chapter 05's softmax over the vowels alone: the other ids cannot be chosen at a `*`.
    std::vector<float> x, p(vowels.size());
    for (std::int32_t id : vowels) x.push_back(logits(0, t, id));
    softmax_rows(x.data(), p.data(), 1, x.size());
    VowelChoice choice;
    choice.position = t;
    choice.right = expected[t];
    for (std::size_t k = 0; k < vowels.size(); ++k) {
      const char vowel = task.target_vocabulary().symbol(vowels[k])[0];
      const float probability = p[k];
      if (vowel == choice.right) {
        choice.right_probability = probability;
      } else if (probability > choice.rival_probability) {
        choice.rival = vowel;
        choice.rival_probability = probability;
      }
    }
    choices.push_back(choice);
  }
  return choices;
}

VowelScores score_vowels(Transformer& model, const VowelTask& task, std::size_t windows,
                         std::size_t beam) {
  const VowelRestoration& data = task.data();
  VowelScores result =
      score_windows(model, task, data, Split::kHeldOut, held_out_windows(data, windows), beam);
  for (const ReferenceExample& e : kReferenceExamples) {
    const std::vector<VowelChoice> choices = vowel_choices(model, task, e.input, e.expected);
    const VowelChoice closest = *std::min_element(  // every sentence hides a vowel
        choices.begin(), choices.end(),
        [](const VowelChoice& a, const VowelChoice& b) { return a.lead() < b.lead(); });
    result.sentences.push_back({e.input, e.reference_output, e.expected,
                                task.restore(model, e.input, beam, true), closest});
  }
  return result;
}

VowelScores score_vowels_on(Transformer& model, const VowelTask& task, const VowelRestoration& text,
                            std::size_t windows, std::size_t beam) {
  if (text.options().window != task.data().options().window)
    throw std::invalid_argument("score_vowels_on: the text is cut into windows of " +
                                std::to_string(text.options().window) +
                                " characters, the task into " +
                                std::to_string(task.data().options().window));
  return score_windows(model, task, text, Split::kTrain,
                       spread_windows(text, Split::kTrain, windows), beam);
}

}  // namespace tfm
