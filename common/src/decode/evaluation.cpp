#include "tfm/decode/evaluation.hpp"

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <numeric>

#include "tfm/data/vowel_restoration.hpp"

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
    {"h* m*d* * w*nd*rf*l d*sc*v*ry", "he made i wonderful discovery", "he made a wonderful discovery"},
    {"*t w*s * d*rk *nd st*rmy n*ght", "it was a a dark andark and sto", "it was a dark and stormy night"},
};

// printf into a std::string.
std::string format(const char* pattern, ...) {
  va_list args, copy;
  va_start(args, pattern);
  va_copy(copy, args);
  std::string text(static_cast<std::size_t>(std::vsnprintf(nullptr, 0, pattern, copy)), '\0');
  va_end(copy);
  std::vsnprintf(text.data(), text.size() + 1, pattern, args);
  va_end(args);
  return text;
}

}  // namespace

SequenceEvaluation evaluate_sequences(Transformer& model, const Task& task, std::size_t beam) {
  SequenceEvaluation result;
  for (const Batch& batch : task.held_out) {
    const TokenIds out = decode(model, task, batch.src, beam, true);
    for (std::size_t b = 0; b < batch.size(); ++b, ++result.total) {
      const std::string got = decoded_text(task.tgt_vocabulary, out, b);
      const std::string want = decoded_text(task.tgt_vocabulary, batch.tgt_out, b);
      result.exact += got == want;
      if (result.examples.size() < 3 && &batch == &task.held_out.front())
        result.examples.push_back({decoded_text(task.src_vocabulary, batch.src, b), got, want});
    }
  }
  return result;
}

namespace {

std::string training_text(const Task& task) {
  const VowelRestoration& data = *task.vowels;
  return data.text().substr(0, data.boundary());
}

// The counting rules of the results table, fitted on the task's training text.
std::vector<VowelBaseline> fitted_baselines(const std::string& train_text) {
  std::vector<VowelBaseline> rules = {VowelBaseline::most_frequent(train_text)};
  for (std::size_t letters = 1; letters <= 3; ++letters)
    rules.push_back(VowelBaseline::with_context(train_text, letters));
  return rules;
}

// [evaluate vowels]
// The windows `chosen` of part `split` of `data` (the task's text, or another book), restored
// by the model (both decodings) and by every rule, 64 windows at a time.
VowelEvaluation score_windows(Transformer& model, const Task& task, const VowelRestoration& data,
                              Split split, const std::vector<std::size_t>& chosen, std::size_t beam) {
  const std::string train_text = training_text(task);
  const std::vector<VowelBaseline> rules = fitted_baselines(train_text);
  const WordList training_words(train_text);
  VowelEvaluation result;
  result.window_length = data.options().window;
  result.model.name = "this model, letters of the input kept (default)";
  result.model_free.name = "this model, free decoding";
  for (const VowelBaseline& rule : rules) result.baselines.push_back({"baseline: " + rule.name(), {}});

  result.windows = chosen.size();
  const std::string& text = data.text();
  for (std::size_t i = 0; i < chosen.size(); i += 64) {
    const std::vector<std::size_t> chunk(chosen.begin() + static_cast<std::ptrdiff_t>(i),
                                         chosen.begin() + static_cast<std::ptrdiff_t>(std::min(chosen.size(), i + 64)));
    const Batch batch = data.batch(split, chunk);
    const TokenIds kept = decode(model, task, batch.src, beam, true);
    const TokenIds free = decode(model, task, batch.src, beam, false);
    for (std::size_t b = 0; b < chunk.size(); ++b) {
      const std::string truth = data.window(split, chunk[b]);
      const std::string masked = mask_vowels(truth);
      // A letter just outside the window means its first (or last) word is only partly shown.
      const std::size_t start = data.window_start(split, chunk[b]), end = start + truth.size();
      const std::vector<WordKind> kinds = word_kinds(truth, start > 0 && text[start - 1] != ' ',
                                                     end < text.size() && text[end] != ' ', training_words);
      result.model.score.add(masked, decoded_text(task.tgt_vocabulary, kept, b), truth, kinds);
      result.model_free.score.add(masked, decoded_text(task.tgt_vocabulary, free, b), truth, kinds);
      for (std::size_t r = 0; r < rules.size(); ++r)
        result.baselines[r].score.add(masked, rules[r].restore(masked), truth, kinds);
    }
  }
  return result;
}
// [evaluate vowels]

}  // namespace

VowelEvaluation evaluate_vowels(Transformer& model, const Task& task, std::size_t windows,
                                std::size_t beam) {
  const VowelRestoration& data = *task.vowels;
  VowelEvaluation result =
      score_windows(model, task, data, Split::kHeldOut, held_out_windows(data, windows), beam);
  for (const ReferenceExample& e : kReferenceExamples)
    result.sentences.push_back({e.input, e.reference_output, e.expected,
                                restore_vowels(model, task, e.input, beam, true)});
  return result;
}

VowelEvaluation evaluate_vowels_on(Transformer& model, const Task& task, const VowelRestoration& book,
                                   std::size_t windows, std::size_t beam) {
  if (book.options().window != task.vowels->options().window)
    throw std::invalid_argument("evaluate_vowels_on: the book is cut into windows of " +
                                std::to_string(book.options().window) + " characters, the task into " +
                                std::to_string(task.vowels->options().window));
  return score_windows(model, task, book, Split::kTrain, spread_windows(book, Split::kTrain, windows), beam);
}

namespace {

// The hidden vowels by the kind of word they lie in, restored by the model and by the widest rule.
std::string word_kinds_text(const VowelEvaluation& r) {
  const RestorationScore& model = r.model.score;
  const RestorationScore& rule = r.baselines.back().score;
  if (model.vowels_with_kinds() == 0) return "";  // scored without word kinds
  std::string text = format("\nThe hidden vowels by the word they are in, and the share of each restored:\n"
                            "  %-42s %6s %11s %15s\n", "", "share", "this model", "3-letter rule");
  for (WordKind kind : {WordKind::kSeen, WordKind::kUnseen, WordKind::kCut})
    text += format("  %-42s %6.3f %11.4f %15.4f\n", word_kind_name(kind), model.share_of(kind),
                   model.vowel_accuracy_of(kind), rule.vowel_accuracy_of(kind));
  return text + format("Were every vowel of the seen words right, and the rest as it is, the model would\n"
                       "restore %.4f of the hidden vowels (the 3-letter rule %.4f).\n",
                       model.vowel_accuracy_with_seen_words_right(), rule.vowel_accuracy_with_seen_words_right());
}

// The scores table and, in words, where the model stands against each baseline.
std::string scores_text(const VowelEvaluation& r) {
  std::string text = format("  %-60s %10s %8s\n", "", "characters", "vowels");
  const auto line = [&text](const ScoredRule& rule) {
    text += format("  %-60s %10.4f %8.4f\n", rule.name.c_str(), rule.score.character_accuracy(),
                   rule.score.vowel_accuracy());
  };
  line(r.model);
  line(r.model_free);
  for (const ScoredRule& baseline : r.baselines) line(baseline);

  // Where the model stands, said in words from the same numbers.
  std::string beaten, ahead;
  for (const ScoredRule& baseline : r.baselines) {
    const std::string name = baseline.name.substr(baseline.name.find(": ") + 2);
    const bool better = r.model.score.vowel_accuracy() > baseline.score.vowel_accuracy();
    (better ? beaten : ahead) += "  - " + name + "\n";
  }
  return text + "\nThe model (letters kept) restores more vowels than:\n" + (beaten.empty() ? "  - none\n" : beaten) +
         "and as many or fewer than:\n" + (ahead.empty() ? "  - none\n" : ahead) + word_kinds_text(r);
}

}  // namespace

// [results table]
std::string results_text(const VowelEvaluation& r) {
  std::string text = format("Held-out vowel restoration: %zu windows of %zu characters, %zu hidden vowels\n",
                            r.windows, r.window_length, r.model.score.vowels);
  text += scores_text(r);
  text += "\nReference 002's test sentences (it printed the middle column):\n";
  for (const ReferenceSentence& s : r.sentences)
    text += format("  %-32s  002: %-32s  ours: %-32s %s\n", s.input.c_str(), s.reference_output.c_str(),
                   s.ours.c_str(), s.correct() ? "(correct)" : "");
  return text;
}
// [results table]

std::string book_results_text(const VowelEvaluation& r, const std::string& book_name) {
  return format("Another book, %s: %zu windows of %zu characters, %zu hidden vowels\n"
                "(the model and the baselines learned from the training text only)\n",
                book_name.c_str(), r.windows, r.window_length, r.model.score.vowels) +
         scores_text(r);
}

std::string results_text(const SequenceEvaluation& r) {
  std::string text;
  for (const SequenceEvaluation::Example& e : r.examples)
    text += "  " + e.source + "  ->  " + e.output +
            (e.output == e.expected ? "   (correct)" : "   (expected: " + e.expected + ")") + "\n";
  return text + format("held-out sequences decoded exactly: %zu of %zu (%.1f%%)\n", r.exact, r.total,
                       r.total ? 100.0 * static_cast<double>(r.exact) / static_cast<double>(r.total) : 0.0);
}

std::string restore_vowels(Transformer& model, const Task& task, const std::string& text,
                           std::size_t beam, bool keep_letters) {
  const TokenIds src = restore_source_ids(task.src_vocabulary, text, model.config().max_len);
  return decoded_text(task.tgt_vocabulary, decode(model, task, src, beam, keep_letters), 0);
}

// [evaluate pronunciations]
PronunciationEvaluation evaluate_pronunciations(Transformer& model, const Task& task, std::size_t words,
                                                const std::vector<std::size_t>& beams,
                                                const LetterToSound& festival, const std::string& rules_file) {
  const PronunciationData& data = *task.pronunciations;
  const std::vector<DictionaryWord>& test = data.words(WordSplit::kTest);
  PronunciationEvaluation result;
  result.test_words = test.size();
  result.data = data.summary();
  result.words = words == 0 ? test.size() : std::min(words, test.size());
  // Batches of 128 words of similar lengths (sorted by length), so that padding costs little.
  std::vector<std::size_t> order(result.words);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return test[a].word.size() < test[b].word.size(); });
  std::vector<std::vector<std::string>> greedy_outputs(result.words);
  const auto run = [&](const std::string& name, std::size_t beam) {
    PronunciationDecoding d{name, beam, {}, 0.0};
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::vector<std::string>> outputs(result.words);
    for (std::size_t i = 0; i < order.size(); i += 128) {
      std::vector<std::pair<const DictionaryWord*, std::size_t>> pairs;
      for (std::size_t j = i; j < std::min(order.size(), i + 128); ++j) pairs.emplace_back(&test[order[j]], 0);
      const TokenIds out = decode(model, task, data.pair_batch(pairs).src, beam, true);
      for (std::size_t b = 0; b < pairs.size(); ++b)
        outputs[order[i + b]] = task.tgt_vocabulary.split(decoded_text(task.tgt_vocabulary, out, b));
    }
    d.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (std::size_t w = 0; w < result.words; ++w) d.score.add(outputs[w], test[w].pronunciations);
    if (name == "greedy") greedy_outputs = outputs;
    result.decodings.push_back(d);
  };
  run("greedy", 1);
  for (const std::size_t beam : beams) run("beam search, K = " + std::to_string(beam), beam);

  result.festival_rules = rules_file;
  result.festival.name = "Festival's letter-to-sound rules";
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::vector<std::string>> festival_outputs;
  for (std::size_t w = 0; w < result.words; ++w) festival_outputs.push_back(festival.pronounce(test[w].word));
  result.festival.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (std::size_t w = 0; w < result.words; ++w) result.festival.score.add(festival_outputs[w], test[w].pronunciations);

  const auto join = [](const std::vector<std::string>& phones) {
    std::string text;
    for (const std::string& p : phones) text += (text.empty() ? "" : " ") + p;
    return text;
  };
  for (std::size_t k = 0; k < 8 && k < result.words; ++k) {
    const std::size_t w = k * result.words / 8;
    std::string references;
    bool correct = false;
    for (const auto& r : test[w].pronunciations) {
      references += (references.empty() ? "" : " | ") + join(r);
      correct = correct || r == greedy_outputs[w];
    }
    result.examples.push_back({test[w].word, join(greedy_outputs[w]), references, correct});
  }
  return result;
}
// [evaluate pronunciations]

std::string results_text(const PronunciationEvaluation& r) {
  std::string text = "CMUdict 0.4 (Festival's copy): " + r.data;
  text += format("Test words (5%% of the words, by a hash of the word; never trained on): %zu of %zu decoded\n",
                 r.words, r.test_words);
  text += format("  %-44s %8s %8s %10s\n", "", "WER", "PER", "seconds");
  const auto line = [&text](const PronunciationDecoding& d) {
    text += format("  %-44s %7.2f%% %7.2f%% %10.2f\n", d.name.c_str(), 100.0 * d.score.word_error_rate(),
                   100.0 * d.score.phoneme_error_rate(), d.seconds);
  };
  for (const PronunciationDecoding& d : r.decodings) line({"this model, " + d.name, d.beam, d.score, d.seconds});
  line(r.festival);
  text += "  (Festival's rules were trained on CMUdict 0.4, most likely on every word of it, these test\n"
          "   words included: their score is flattered. Its phones are read as ours: stress dropped, ax = ah.)\n";
  text += "\nPublished on CMUdict, for scale only: another version of the dictionary, another split,\n"
          "not measured here:\n"
          "  joint-sequence models (Bisani & Ney 2008)            about 24-25% WER\n"
          "  LSTM encoder-decoders (Yao & Zweig 2015; Rao et al. 2015)  about 21-24% WER\n"
          "  a small Transformer (Yolchuyeva et al. 2019)          about 22% WER, 5% PER\n";
  text += "\nExamples (greedy decoding; references separated by |):\n";
  for (const auto& e : r.examples)
    text += format("  %-16s -> %-28s %s\n", e.word.c_str(), e.output.c_str(),
                   e.correct ? "(correct)" : ("(expected: " + e.references + ")").c_str());
  return text;
}

std::vector<std::string> pronounce_words(Transformer& model, const Task& task,
                                         const std::vector<std::string>& words, std::size_t beam) {
  const TokenIds src = task.pronunciations->encode_words(words, model.config().max_len);
  const TokenIds out = decode(model, task, src, beam, true);
  std::vector<std::string> phonemes;
  for (std::size_t b = 0; b < words.size(); ++b) {
    std::string text = decoded_text(task.tgt_vocabulary, out, b);
    // Decoding stops after as many phonemes as the longest pronunciation trained on: a word that
    // needs more (or a model that never ends it) would be cut off silently without this note.
    if (!row_ended(out, b))
      text += "  (cut off at " + std::to_string(out.shape(1)) + " phonemes, the most the model writes: it did not end the word)";
    phonemes.push_back(text);
  }
  return phonemes;
}

}  // namespace tfm
