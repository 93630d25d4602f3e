#include "tfm/model/config.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "tfm/support/parse_number.hpp"
#include "tfm/support/printable.hpp"

namespace tfm {
namespace {

enum class Kind { kSize, kFloat, kBool };

struct Field {
  const char* key;
  Kind kind;
  std::size_t Config::*size_member;
  float Config::*float_member;
  bool Config::*bool_member;
  const char* help;
};

Field size_field(const char* key, std::size_t Config::*m, const char* help) {
  return {key, Kind::kSize, m, nullptr, nullptr, help};
}
Field float_field(const char* key, float Config::*m, const char* help) {
  return {key, Kind::kFloat, nullptr, m, nullptr, help};
}
Field bool_field(const char* key, bool Config::*m, const char* help) {
  return {key, Kind::kBool, nullptr, nullptr, m, help};
}

const std::vector<Field>& fields() {
  static const std::vector<Field> all = {
      size_field("src_vocab_size", &Config::src_vocab_size, "source vocabulary size"),
      size_field("tgt_vocab_size", &Config::tgt_vocab_size, "target vocabulary size"),
      size_field("d_model", &Config::d_model, "width of every token vector"),
      size_field("n_heads", &Config::n_heads, "attention heads (must divide d_model)"),
      size_field("n_encoder_layers", &Config::n_encoder_layers, "encoder layers"),
      size_field("n_decoder_layers", &Config::n_decoder_layers, "decoder layers"),
      size_field("d_ff", &Config::d_ff, "hidden width of the feed-forward network"),
      float_field("dropout", &Config::dropout, "dropout probability in [0, 1)"),
      bool_field("attention_bias", &Config::attention_bias, "bias in W_Q, W_K, W_V, W_O (0/1)"),
      bool_field("linear_bias", &Config::linear_bias, "bias in feed-forward and output (0/1)"),
      bool_field("shared_embedding", &Config::shared_embedding, "one embedding for both sides"),
      bool_field("scaled_embedding_init", &Config::scaled_embedding_init,
                 "embeddings start from N(0, 1/d_model), not N(0, 1)"),
      size_field("max_len", &Config::max_len, "rows of the positional-encoding table"),
      size_field("src_len", &Config::src_len, "source length of a batch"),
      size_field("tgt_len", &Config::tgt_len, "target length of a batch"),
      size_field("batch_size", &Config::batch_size, "sequences per batch"),
      float_field("learning_rate", &Config::learning_rate, "Adam's step size (peak with warm-up)"),
      size_field("warmup_steps", &Config::warmup_steps,
                 "0: constant rate; else Noam warm-up steps"),
      float_field("label_smoothing", &Config::label_smoothing, "label smoothing in [0, 1)"),
      float_field("clip_norm", &Config::clip_norm, "gradient-norm clipping (0: none)"),
      size_field("seed", &Config::seed, "seed of the weights, dropout masks and batches"),
  };
  return all;
}

const Field& find_field(const std::string& key) {
  for (const Field& f : fields())
    if (key == f.key) return f;
  throw std::invalid_argument("unknown config key '" + printable(key) + "'; known keys: " + [] {
    std::string list;
    for (const Field& f : fields()) list += (list.empty() ? "" : ", ") + std::string(f.key);
    return list;
  }());
}

std::size_t parse_size(const std::string& key, const std::string& text) {
  const std::optional<long long> v = parse_number<long long>(text);
  if (!v || *v < 0)
    throw std::invalid_argument("config key '" + key + "' needs a whole number >= 0, got '" +
                                printable(text) + "'");
  return static_cast<std::size_t>(*v);
}

float parse_float(const std::string& key, const std::string& text) {
  const std::optional<float> v = parse_number<float>(text);
  if (!v)
    throw std::invalid_argument("config key '" + key + "' needs a number, got '" + printable(text) +
                                "'");
  // A value a float holds only as a subnormal (or not at all) would be trained as 0 (the
  // library flushes subnormals to 0) or lose its digits: say so rather than report "0" later.
  // Read as a double, which holds it, because a flushed float compares equal to 0.
  const double exact = parse_number<double>(text).value_or(0.0);
  if (exact != 0.0 && std::fabs(exact) < std::numeric_limits<float>::min())
    throw std::invalid_argument("config key '" + key + "': " + text +
                                " is too close to 0 for a float (the smallest is about 1.2e-38)");
  return *v;
}

bool parse_bool(const std::string& key, const std::string& text) {
  if (text == "1" || text == "true" || text == "yes") return true;
  if (text == "0" || text == "false" || text == "no") return false;
  throw std::invalid_argument("config key '" + key + "' needs 0/1 or true/false, got '" +
                              printable(text) + "'");
}

}  // namespace

void Config::validate() const {
  auto fail = [](const std::string& what) {
    throw std::invalid_argument("invalid config: " + what);
  };
  for (const Field& f : fields())
    if (f.kind == Kind::kSize && this->*f.size_member == 0 &&
        f.size_member != &Config::warmup_steps && f.size_member != &Config::seed)
      fail(std::string(f.key) + " must be at least 1");
  if (d_model % n_heads != 0)
    fail("d_model (" + std::to_string(d_model) + ") must be divisible by n_heads (" +
         std::to_string(n_heads) + ")");
  if (!(dropout >= 0.0f && dropout < 1.0f))
    fail("dropout must be in [0, 1), got " + std::to_string(dropout));
  if (!(learning_rate > 0.0f && std::isfinite(learning_rate)))
    fail("learning_rate must be a finite number > 0, got " + std::to_string(learning_rate));
  if (!(label_smoothing >= 0.0f && label_smoothing < 1.0f))
    fail("label_smoothing must be in [0, 1)");
  if (!(clip_norm >= 0.0f && std::isfinite(clip_norm)))
    fail("clip_norm must be a finite number >= 0");
  if (shared_embedding && src_vocab_size != tgt_vocab_size)
    fail("shared_embedding needs src_vocab_size == tgt_vocab_size (" +
         std::to_string(src_vocab_size) + " vs " + std::to_string(tgt_vocab_size) + ")");
  if (src_len > max_len || tgt_len > max_len)
    fail("src_len and tgt_len must not exceed max_len (" + std::to_string(max_len) + ")");
}

void Config::set(const std::string& key, const std::string& value) {
  const Field& f = find_field(key);
  switch (f.kind) {
    case Kind::kSize:
      this->*f.size_member = parse_size(key, value);
      break;
    case Kind::kFloat:
      this->*f.float_member = parse_float(key, value);
      break;
    case Kind::kBool:
      this->*f.bool_member = parse_bool(key, value);
      break;
  }
}

void Config::set(const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw std::invalid_argument("--set needs key=value, got '" + assignment + "'");
  set(assignment.substr(0, eq), assignment.substr(eq + 1));
}

std::string Config::get(const std::string& key) const {
  const Field& f = find_field(key);
  std::ostringstream out;
  switch (f.kind) {
    case Kind::kSize:
      out << this->*f.size_member;
      break;
    case Kind::kFloat: {
      // The shortest text that reads back as the same float (0.1, not 0.100000001), so that a
      // checkpoint's config.txt restores every value bit for bit.
      const float value = this->*f.float_member;
      char text[32];
      for (int digits = 6; digits <= 9; ++digits) {
        std::snprintf(text, sizeof text, "%.*g", digits, static_cast<double>(value));
        if (std::strtof(text, nullptr) == value) break;
      }
      out << text;
      break;
    }
    case Kind::kBool:
      out << (this->*f.bool_member ? 1 : 0);
      break;
  }
  return out.str();
}

std::vector<std::string> Config::keys() {
  std::vector<std::string> out;
  for (const Field& f : fields()) out.emplace_back(f.key);
  return out;
}

std::string Config::describe_keys() {
  std::ostringstream out;
  for (const Field& f : fields()) {
    std::string key = f.key;
    key.resize(18, ' ');
    out << "  " << key << f.help << '\n';
  }
  return out.str();
}

namespace {
// A preset is the preset it starts from and the fields it changes, each written as `--set`
// writes it, so that a preset reads as a table and `--set` can undo any of its choices.
struct PresetSpec {
  const char* name;
  const char* based_on;  ///< "" for Config's defaults
  std::vector<const char*> settings;
};

const std::vector<PresetSpec>& preset_specs() {
  static const std::vector<PresetSpec> specs = {
      // Config's defaults: small enough for gradient checks.
      {"tiny", "", {}},
      // Chapter 11's copy and translate tasks: few parameters and no dropout. Measured: with these,
      // copy decodes all of 128 held-out sequences after 1000 steps (seeds 1-3).
      {"toy",
       "",
       {"d_model=32", "n_heads=4", "d_ff=64", "dropout=0", "batch_size=32", "learning_rate=1e-2",
        "warmup_steps=50", "scaled_embedding_init=1"}},
      // Reference 000: the paper's base model, one embedding shared by source and target.
      {"csdn",
       "",
       {"src_vocab_size=10000", "tgt_vocab_size=10000", "d_model=512", "n_heads=8",
        "n_encoder_layers=6", "n_decoder_layers=6", "d_ff=2048", "dropout=0.1", "attention_bias=1",
        "linear_bias=1", "shared_embedding=1", "max_len=5000", "src_len=10", "tgt_len=20",
        "batch_size=32"}},
      // Reference 001 (wmathor/nlp-tutorial): bias-free linears, toy German -> English vocabularies.
      {"nlp-tutorial",
       "",
       {"src_vocab_size=6", "tgt_vocab_size=9", "d_model=512", "n_heads=8", "n_encoder_layers=6",
        "n_decoder_layers=6", "d_ff=2048", "dropout=0", "attention_bias=0", "linear_bias=0",
        "shared_embedding=0", "max_len=5000", "src_len=5", "tgt_len=6", "batch_size=2"}},
      // Reference 002: vowel restoration, 29 symbols (<bos>, '*', space, 26 letters).
      {"vowels",
       "",
       {"src_vocab_size=29", "tgt_vocab_size=29", "d_model=256", "n_heads=8", "n_encoder_layers=3",
        "n_decoder_layers=3", "d_ff=1024", "dropout=0.1", "attention_bias=0", "linear_bias=1",
        "shared_embedding=0", "max_len=1000", "src_len=40", "tgt_len=40", "batch_size=128",
        "learning_rate=1e-3"}},
      // Reference 002's task at a size that learns in minutes on two cores (chosen by measurement;
      // the lab's page gives the figures): the model of chapter 11's longer recipe and of the
      // pronunciation project. Embeddings start small so the positional signal is not drowned, and
      // the rate warms up. No dropout: it only slows a short run down (measured: 0.751 held-out
      // vowel accuracy after 1,600 steps with 0.1, 0.782 without); the longer runs add it.
      {"vowels-small",
       "vowels",
       {"src_vocab_size=32", "tgt_vocab_size=32", "d_model=128", "n_heads=4", "n_encoder_layers=2",
        "n_decoder_layers=2", "d_ff=512", "max_len=64", "batch_size=64", "learning_rate=4e-3",
        "warmup_steps=200", "dropout=0", "scaled_embedding_init=1"}},
      // Chapter 11's default: vowels-small at half its width. A short run on a CPU is limited by
      // arithmetic, and this model makes 2.4 times the steps in the same time (measured: 0.834 of
      // the held-out vowels in 5,300 steps against vowels-small's 0.805 in 2,250, five minutes
      // each).
      {"vowels-tiny", "vowels-small", {"d_model=64", "d_ff=256"}},
  };
  return specs;
}
}  // namespace

Config preset(const std::string& name) {
  for (const PresetSpec& spec : preset_specs()) {
    if (name != spec.name) continue;
    Config c = *spec.based_on ? preset(spec.based_on) : Config{};
    for (const char* setting : spec.settings) c.set(setting);
    c.preset = name;
    return c;
  }
  std::string known;
  for (const auto& n : preset_names()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown preset '" + name + "'; known presets: " + known);
}

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const PresetSpec& spec : preset_specs()) names.emplace_back(spec.name);
  return names;
}

namespace {
// One formula per component, counted in N: std::size_t for the table, double to learn first
// whether the count fits in 64 bits.
template <typename N>
N linear_count(N in, N out, bool bias) {
  return in * out + (bias ? out : N(0));
}
template <typename N>
N attention_count(const Config& c) {
  return 4 * linear_count(N(c.d_model), N(c.d_model), c.attention_bias);
}
template <typename N>
N feed_forward_count(const Config& c) {
  return linear_count(N(c.d_model), N(c.d_ff), c.linear_bias) +
         linear_count(N(c.d_ff), N(c.d_model), c.linear_bias);
}
template <typename N>
N layer_norm_count(const Config& c) {
  return 2 * N(c.d_model);
}
template <typename N>
N encoder_layer_count(const Config& c) {
  return attention_count<N>(c) + feed_forward_count<N>(c) + 2 * layer_norm_count<N>(c);
}
template <typename N>
N decoder_layer_count(const Config& c) {
  return 2 * attention_count<N>(c) + feed_forward_count<N>(c) + 3 * layer_norm_count<N>(c);
}
template <typename N>
N embedding_count(const Config& c) {
  return c.shared_embedding ? N(c.src_vocab_size) * N(c.d_model)
                            : (N(c.src_vocab_size) + N(c.tgt_vocab_size)) * N(c.d_model);
}
template <typename N>
N output_projection_count(const Config& c) {
  return linear_count(N(c.d_model), N(c.tgt_vocab_size), c.linear_bias);
}
}  // namespace

namespace count {
std::size_t linear(std::size_t in, std::size_t out, bool bias) {
  return linear_count(in, out, bias);
}
std::size_t multi_head_attention(const Config& c) {
  return attention_count<std::size_t>(c);
}
std::size_t feed_forward(const Config& c) {
  return feed_forward_count<std::size_t>(c);
}
std::size_t layer_norm(const Config& c) {
  return layer_norm_count<std::size_t>(c);
}
std::size_t encoder_layer(const Config& c) {
  return encoder_layer_count<std::size_t>(c);
}
std::size_t decoder_layer(const Config& c) {
  return decoder_layer_count<std::size_t>(c);
}
}  // namespace count

double parameter_count(const Config& c) {
  return embedding_count<double>(c) + double(c.n_encoder_layers) * encoder_layer_count<double>(c) +
         double(c.n_decoder_layers) * decoder_layer_count<double>(c) +
         output_projection_count<double>(c);
}

std::vector<ParameterCount> parameter_counts(const Config& c) {
  // The counts below are 64-bit; a model whose count would not fit is refused, not miscounted.
  if (const double count = parameter_count(c); count > 1e18) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2g", count);
    throw std::invalid_argument("a model of d_model " + std::to_string(c.d_model) + " and d_ff " +
                                std::to_string(c.d_ff) + " would have about " + text +
                                " parameters: too many to count, or to hold on any machine");
  }
  std::vector<ParameterCount> rows;
  if (c.shared_embedding) {
    rows.push_back({"shared embedding", c.src_vocab_size * c.d_model, 1});
  } else {
    rows.push_back({"source embedding", c.src_vocab_size * c.d_model, 1});
    rows.push_back({"target embedding", c.tgt_vocab_size * c.d_model, 1});
  }
  rows.push_back({"encoder layer", count::encoder_layer(c), c.n_encoder_layers});
  rows.push_back({"decoder layer", count::decoder_layer(c), c.n_decoder_layers});
  rows.push_back({"output projection", output_projection_count<std::size_t>(c), 1});
  return rows;
}

std::size_t total_parameters(const Config& c) {
  std::size_t total = 0;
  for (const auto& row : parameter_counts(c)) total += row.total();
  return total;
}

}  // namespace tfm
