#include "translate/translator.hpp"

#include <algorithm>
#include <numeric>
#include <xtensor/xview.hpp>

#include "tfm/decode/beam_search.hpp"
#include "tfm/decode/decoding.hpp"

namespace translate {

// [translate texts]
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
    const tfm::TokenIds src = data.encode_sources(texts);
    const std::size_t steps = std::min(model.config().max_len, 2 * src.shape(1) + 10);
    tfm::TokenIds tokens;
    if (choice.beam <= 1) {
      tfm::DecodeOptions options;
      options.max_steps = steps;
      tokens = tfm::greedy_decode(model, src, options).tokens;
    } else {
      tfm::BeamOptions options;
      options.max_steps = steps;
      options.beam_size = choice.beam;
      options.length_penalty = choice.alpha;
      tokens = tfm::beam_search(model, src, options).best_tokens();
    }
    for (std::size_t r = 0; r < texts.size(); ++r)
      translations[order[first + r]] = data.decode(tfm::row(tokens, r));
  }
  return translations;
}
// [translate texts]

}  // namespace translate
