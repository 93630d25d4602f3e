#include "translate/translator.hpp"

#include <algorithm>
#include <iostream>
#include <numeric>
#include <xtensor/xview.hpp>

#include "tfm/decode/beam_search.hpp"
#include "tfm/decode/decoding.hpp"
#include "tfm/tasks/text_lines.hpp"

namespace translate {

// [translate texts]
tfm::TokenIds translation_tokens(tfm::Transformer& model, const tfm::TokenIds& src,
                                 const DecodingChoice& choice) {
  const std::size_t steps = std::min(model.config().max_len, 2 * src.shape(1) + 10);
  if (choice.beam <= 1) {
    tfm::DecodeOptions options;
    options.max_steps = steps;
    return tfm::greedy_decode(model, src, options).tokens;
  }
  tfm::BeamOptions options;
  options.max_steps = steps;
  options.beam_size = choice.beam;
  options.length_penalty = choice.alpha;
  return tfm::beam_search(model, src, options).best_tokens();
}

std::vector<std::string> translate_texts(tfm::Transformer& model, const TranslationData& data,
                                         const std::vector<std::string>& sources,
                                         const DecodingChoice& choice) {
  std::vector<std::size_t> lengths(sources.size()), order(sources.size());
  for (std::size_t i = 0; i < sources.size(); ++i)
    lengths[i] = data.encode_sources({sources[i]}).shape(1);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return lengths[a] < lengths[b]; });
  std::vector<std::string> translations(sources.size());
  const std::size_t per_batch = std::max<std::size_t>(1, choice.sources_per_batch);
  for (std::size_t first = 0; first < order.size(); first += per_batch) {
    std::vector<std::string> texts;
    const std::size_t last = std::min(order.size(), first + per_batch);
    for (std::size_t k = first; k < last; ++k) texts.push_back(sources[order[k]]);
    const tfm::TokenIds tokens = translation_tokens(model, data.encode_sources(texts), choice);
    for (std::size_t r = 0; r < texts.size(); ++r)
      translations[order[first + r]] = data.decode(tfm::row(tokens, r));
  }
  return translations;
}
// [translate texts]

std::string unknown_characters_note(const TranslationData& data, const std::string& text) {
  const std::vector<std::string> unknown = data.tokenizer().unknown_characters(text);
  if (unknown.empty()) return "";
  std::string list;
  for (const std::string& c : unknown) list += " '" + c + "'";
  return "the tokenizer never saw" + list +
         " in training: " + (unknown.size() == 1 ? "it becomes" : "they become") + " <unk>";
}

std::size_t translate_lines(std::istream& in, tfm::Transformer& model, const TranslationData& data,
                            const DecodingChoice& choice, const std::string& attention_dir) {
  return tfm::answer_lines(
      in, std::cout, std::cerr, "--translate -", model, data.vocabulary(), data.vocabulary(),
      [&](const std::string& line) {
        tfm::LineAnswer answer;
        const std::string note = unknown_characters_note(data, line);
        if (!note.empty()) answer.notes.push_back(note);
        answer.src = data.encode_sources({line});
        answer.generated = translation_tokens(model, answer.src, choice);
        answer.output = data.decode(tfm::row(answer.generated, 0));
        return answer;
      },
      attention_dir);
}

}  // namespace translate
