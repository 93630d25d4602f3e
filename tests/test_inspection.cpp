// Looking inside a model on one input (pictures/inspection.hpp), the maps written for it
// (pictures/attention_dir.hpp), and a typed line read as the vowel task's training text was.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <numeric>

#include "temp_dir.hpp"
#include "tfm/decode/decoding.hpp"
#include "tfm/model/transformer.hpp"
#include "tfm/pictures/attention_dir.hpp"
#include "tfm/pictures/heatmap.hpp"
#include "tfm/pictures/inspection.hpp"
#include "tfm/support/text_file.hpp"
#include "tfm/tasks/vowel_restoration.hpp"

using namespace tfm;
using tfm::testing::TempDir;

namespace {

TokenIds one_row(const std::vector<std::int32_t>& ids) {
  TokenIds row = TokenIds::from_shape({1, ids.size()});
  for (std::size_t i = 0; i < ids.size(); ++i) row(0, i) = ids[i];
  return row;
}

}  // namespace

TEST_CASE("inspect: the top choices are greedy decoding's own, the maps are probabilities",
          "[inspection]") {
  Config config = preset("tiny");
  config.dropout = 0.0f;
  Transformer model(config, 7);
  const TokenIds src = one_row({5, 6, 7, 8, 9});
  DecodeOptions options;
  options.max_steps = 6;
  options.stop_at_eos = false;
  const DecodeResult decoded = greedy_decode(model, src, options);
  const Inspection seen = inspect(model, src, decoded.tokens, 3);

  REQUIRE(seen.top_choices.size() == 6);
  for (std::size_t t = 0; t < 6; ++t) {
    const auto& row = seen.top_choices[t];
    REQUIRE(row.size() == 3);
    // Greedy decoding chose the most probable token at every step: teacher forcing on its output
    // sees the same logits.
    CHECK(row[0].id == decoded.tokens(0, t));
    CHECK(row[0].probability >= row[1].probability);
    CHECK(row[1].probability >= row[2].probability);
    // The softmax of the step's logits, over the whole vocabulary, in double precision.
    double max_logit = decoded.logits(0, t, 0), total = 0.0;
    for (std::size_t v = 0; v < config.tgt_vocab_size; ++v)
      max_logit = std::max(max_logit, double(decoded.logits(0, t, v)));
    for (std::size_t v = 0; v < config.tgt_vocab_size; ++v)
      total += std::exp(decoded.logits(0, t, v) - max_logit);
    CHECK(row[0].probability ==
          Approx(std::exp(decoded.logits(0, t, row[0].id) - max_logit) / total).epsilon(1e-4));
  }
  REQUIRE(seen.encoder_self.size() == config.n_encoder_layers);
  REQUIRE(seen.cross.size() == config.n_decoder_layers);
  const Tensor2 cross = seen.attention(AttentionKind::kCross, 1, 1);
  REQUIRE(cross.shape(0) == 6);
  REQUIRE(cross.shape(1) == 5);
  for (std::size_t i = 0; i < 6; ++i) {
    float sum = 0.0f;
    for (std::size_t j = 0; j < 5; ++j) sum += cross(i, j);
    CHECK(sum == Approx(1.0f).epsilon(1e-5));
  }
  const Tensor2 causal = seen.attention(AttentionKind::kDecoderSelf, 0, 0);
  CHECK(causal(0, 1) == 0.0f);  // nothing above the diagonal
  CHECK_THROWS_WITH(seen.attention(AttentionKind::kCross, 2, 0),
                    "cross: no layer 2 (the model has 2)");
  CHECK_THROWS_WITH(seen.attention(AttentionKind::kEncoderSelf, 0, 9),
                    "encoder_self: no head 9 (the model has 2)");
  CHECK(model.training());  // restored
}

TEST_CASE("inspect refuses a batch of two and an empty output", "[inspection][bad-input]") {
  Transformer model(preset("tiny"), 1);
  const TokenIds two = TokenIds::from_shape({2, 3});
  CHECK_THROWS_AS(inspect(model, two, one_row({4}), 2), ShapeError);
  CHECK_THROWS_AS(inspect(model, one_row({4, 5}), TokenIds::from_shape({1, 0}), 2), ShapeError);
}

TEST_CASE("the labels of the maps are the input's and the decoder's own tokens", "[inspection]") {
  const Vocabulary vocabulary = vowel_vocabulary();
  Config config = preset("tiny");
  config.src_vocab_size = config.tgt_vocab_size = vocabulary.size();
  Transformer model(config, 3);
  const TokenIds src = restore_source_ids(vocabulary, "c*t", config.max_len);
  const TokenIds output = restore_source_ids(vocabulary, "cat", config.max_len);
  const Inspection seen = inspect(model, src, output, 1);
  const auto [rows, columns] = seen.attention_labels(AttentionKind::kCross, vocabulary, vocabulary);
  CHECK(rows == std::vector<std::string>{"<bos>", "c", "a"});
  CHECK(columns == std::vector<std::string>{"c", "*", "t"});

  TempDir dir("inspection", "maps");
  const std::string index = write_attention_dir(dir.file("maps"), seen, vocabulary, vocabulary);
  for (const char* file : {"encoder_self_layer0.svg", "encoder_self_layer1.svg",
                           "decoder_self_layer1.svg", "cross_layer0.svg", "cross_layer1.svg"})
    CHECK(std::filesystem::is_regular_file(std::filesystem::path(dir.file("maps")) / file));
  const std::string page = read_text_file(index, "index");
  CHECK(page.find("<img src=\"cross_layer1.svg\"") != std::string::npos);
  CHECK(page.find("c*t") != std::string::npos);
  CHECK(attention_dir_note(index).find(index) != std::string::npos);
}

TEST_CASE("heatmap_svg is the document write_heatmap_svg writes", "[inspection][heatmap]") {
  Tensor2 values = {{0.25f, 0.75f}, {1.0f, 0.0f}};
  HeatmapOptions options;
  options.row_labels = {"a", "<b>"};
  TempDir dir("inspection", "svg");
  write_heatmap_svg(dir.file("map.svg"), values, options);
  CHECK(read_text_file(dir.file("map.svg"), "map") == heatmap_svg(values, options));
  CHECK(heatmap_svg(values, options).find("&lt;b&gt;") != std::string::npos);
}

TEST_CASE("a typed line is read by the training text's rules, with notes", "[vowels][typed]") {
  const TypedText hello = read_typed_text("Hello, World!");
  CHECK(hello.masked == "h*ll* w*rld");
  REQUIRE(hello.notes.size() == 3);
  CHECK(hello.notes[0] == "lower-cased 'H', 'W': the model was trained on lower-case text");
  CHECK(hello.notes[1].rfind("left out ',', '!' as training did", 0) == 0);
  CHECK(hello.notes[2] == "hid the 3 vowels (a e i o u) as *");
  // An accented letter is one character in the note; training dropped it like punctuation.
  const TypedText cafe = read_typed_text("caf\xc3\xa9 noir");
  CHECK(cafe.masked == "c*f n**r");
  CHECK(cafe.notes[0].find("'\xc3\xa9'") != std::string::npos);
  // A typed `*` hides a vowel the person chose; nothing else is hidden.
  const TypedText given = read_typed_text("th* time");
  CHECK(given.masked == "th* time");
  CHECK(given.notes ==
        std::vector<std::string>{
            "took each * as a hidden vowel; the letters you typed stay as they are"});
  CHECK(read_typed_text(" 12 ?! ").masked.empty());
  CHECK(normalize_line("a*b") == "a b");  // the corpus's rule is unchanged
}

TEST_CASE("text_windows cuts at spaces and gives the text back", "[vowels][typed]") {
  CHECK(text_windows("the time machine", 8) ==
        std::vector<std::string>{"the ", "time ", "machine"});
  CHECK(text_windows("abcdefghij", 4) == std::vector<std::string>{"abcd", "efgh", "ij"});
  CHECK(text_windows("short", 40) == std::vector<std::string>{"short"});
  CHECK(text_windows("", 40).empty());
  const std::string long_text =
      "the time traveller for so it will be convenient to speak of him was expounding";
  std::string joined;
  for (const std::string& window : text_windows(long_text, 40)) {
    CHECK(window.size() <= 40);
    joined += window;
  }
  CHECK(joined == long_text);
  CHECK_THROWS_WITH(text_windows("x", 0), "text_windows: the width must be at least 1");
}
