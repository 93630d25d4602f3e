// What the playground answers about a text: the output, the top choices at every output
// position (JSON), and the heat map of one attention (SVG). The same functions serve the page and
// the tests; they know nothing of HTTP.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "models.hpp"
#include "tfm/pictures/inspection.hpp"

namespace play {

// How many choices the page shows per output position.
inline constexpr std::size_t kTopChoices = 5;

// The loaded models as JSON: [{"task", "purpose", "size", "dir", "layers", "heads"}, ...].
std::string models_json(const std::vector<std::unique_ptr<PlayModel>>& models);

// `text` read, decoded window by window and inspected, as JSON: {"output", "notes", "windows":
// [{"input", "decoder_input", "output", "choices": [[{"token", "p"}, ...], ...]}]}. Throws
// std::invalid_argument for a text the model cannot read.
std::string answer_json(PlayModel& model, const std::string& text, std::size_t beam);

// The heat map of one attention (kind, layer, head) of window `window` of `text`, labelled with
// the text's own tokens. Throws std::invalid_argument for a text the model cannot read and
// std::out_of_range for a window, layer or head it does not have.
std::string attention_svg(PlayModel& model, const std::string& text, std::size_t beam,
                          std::size_t window, tfm::AttentionKind kind, std::size_t layer,
                          std::size_t head);

// A token as the page shows it: a space as "␣" (visible in a heat map's labels).
std::string shown(const std::string& symbol);

}  // namespace play
