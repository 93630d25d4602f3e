#include "answers.hpp"

#include <stdexcept>

#include "json.hpp"
#include "tfm/pictures/attention_pictures.hpp"

namespace play {
namespace {

std::vector<std::string> shown_labels(std::vector<std::string> labels) {
  for (std::string& label : labels) label = shown(label);
  return labels;
}

}  // namespace

std::string shown(const std::string& symbol) {
  return symbol == " " ? "\u2423" : symbol;
}

std::string models_json(const std::vector<std::unique_ptr<PlayModel>>& models) {
  std::string out = "[";
  for (std::size_t i = 0; i < models.size(); ++i) {
    const PlayModel& m = *models[i];
    const tfm::Config& c = m.saved().header.config;
    out += std::string(i ? "," : "") + "{\"task\":" + json_string(m.task()) +
           ",\"purpose\":" + json_string(m.purpose()) + ",\"size\":" + json_string(m.size()) +
           ",\"dir\":" + json_string(m.saved().dir) +
           ",\"encoder_layers\":" + std::to_string(c.n_encoder_layers) +
           ",\"decoder_layers\":" + std::to_string(c.n_decoder_layers) +
           ",\"heads\":" + std::to_string(c.n_heads) + "}";
  }
  return out + "]";
}

std::string answer_json(PlayModel& model, const std::string& text, std::size_t beam) {
  const Reading reading = model.read(text);
  std::string output, windows;
  for (std::size_t w = 0; w < reading.windows.size(); ++w) {
    const tfm::TokenIds& src = reading.windows[w];
    const tfm::TokenIds generated = model.generate(src, beam);
    output += (w ? model.window_separator() : "") + model.output_text(generated);
    const tfm::Inspection seen = tfm::inspect(model.model(), src, generated, kTopChoices);
    const std::vector<std::string> decoder_input =
        seen.attention_labels(tfm::AttentionKind::kDecoderSelf, model.source(), model.target())
            .first;
    std::string choices;
    for (std::size_t t = 0; t < seen.top_choices.size(); ++t) {
      choices += t ? ",[" : "[";
      for (std::size_t k = 0; k < seen.top_choices[t].size(); ++k) {
        const tfm::TokenChoice& choice = seen.top_choices[t][k];
        choices += std::string(k ? "," : "") +
                   "{\"token\":" + json_string(shown(model.target().symbol(choice.id))) +
                   ",\"p\":" + json_number(choice.probability) + "}";
      }
      choices += "]";
    }
    windows += std::string(w ? "," : "") + "{\"input\":" +
               json_strings(shown_labels(tfm::token_labels(model.source(), src, 0))) +
               ",\"decoder_input\":" + json_strings(shown_labels(decoder_input)) + ",\"output\":" +
               json_strings(shown_labels(tfm::token_labels(model.target(), generated, 0))) +
               ",\"choices\":[" + choices + "]}";
  }
  return "{\"output\":" + json_string(output) + ",\"notes\":" + json_strings(reading.notes) +
         ",\"windows\":[" + windows + "]}";
}

std::string attention_svg(PlayModel& model, const std::string& text, std::size_t beam,
                          std::size_t window, tfm::AttentionKind kind, std::size_t layer,
                          std::size_t head) {
  const Reading reading = model.read(text);
  if (window >= reading.windows.size())
    throw std::out_of_range("no window " + std::to_string(window) + " (the text has " +
                            std::to_string(reading.windows.size()) + ")");
  const tfm::TokenIds& src = reading.windows[window];
  const tfm::Inspection seen = tfm::inspect(model.model(), src, model.generate(src, beam), 1);
  const tfm::Tensor2 weights = seen.attention(kind, layer, head);
  const auto [rows, columns] = seen.attention_labels(kind, model.source(), model.target());
  return tfm::attention_heatmap_svg(std::string(tfm::attention_kind_title(kind)) + ", layer " +
                                        std::to_string(layer) + ", head " + std::to_string(head),
                                    weights, shown_labels(rows), shown_labels(columns));
}

}  // namespace play
