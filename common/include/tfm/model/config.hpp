/// \file config.hpp
/// \brief Chapter 01: the hyper-parameters of the model as one struct, with the reference
/// configurations as named presets.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tfm {

/// Every hyper-parameter of the model and of its training, in one place.
struct Config {
  std::string preset = "tiny";       ///< Name of the preset this configuration started from.
  std::size_t src_vocab_size = 16;   ///< Source vocabulary size (tokens the encoder reads).
  std::size_t tgt_vocab_size = 16;   ///< Target vocabulary size (tokens the decoder writes).
  std::size_t d_model = 16;          ///< Width of every token vector.
  std::size_t n_heads = 2;           ///< Attention heads; d_k = d_v = d_model / n_heads.
  std::size_t n_encoder_layers = 2;  ///< Encoder layers, N in the paper.
  std::size_t n_decoder_layers = 2;  ///< Decoder layers.
  std::size_t d_ff = 32;             ///< Hidden width of the position-wise feed-forward network.
  float dropout = 0.1f;              ///< Dropout probability, in [0, 1).
  bool attention_bias = true;        ///< Do W_Q, W_K, W_V, W_O have a bias?
  bool linear_bias = true;           ///< Do the feed-forward and output projections have a bias?
  bool shared_embedding = false;     ///< One embedding table for source and target?
  /// Embedding entries start from N(0, 1/d_model) instead of nn.Embedding's N(0, 1), so that
  /// after the scaling by sqrt(d_model) tokens and positions are equally loud (chapter 11).
  bool scaled_embedding_init = false;
  std::size_t max_len = 512;     ///< Rows of the positional-encoding table.
  std::size_t src_len = 8;       ///< Source sequence length of a batch.
  std::size_t tgt_len = 8;       ///< Target sequence length of a batch.
  std::size_t batch_size = 4;    ///< Sequences per batch.
  float learning_rate = 1e-3f;   ///< Adam's step size (the peak, when warming up).
  std::size_t warmup_steps = 0;  ///< 0: constant rate; else the paper's schedule peaking here.
  float label_smoothing = 0.0f;  ///< Share of each target's probability spread over the vocabulary.
  float clip_norm = 1.0f;        ///< Gradient-norm clipping threshold (0: none).
  /// Seed of the weights, the dropout masks and the training batches. Kept in a checkpoint, so
  /// that a resumed run draws what the uninterrupted run would have drawn.
  std::size_t seed = 1;

  /// Width of one head's queries and keys, d_k = d_model / n_heads.
  std::size_t d_k() const { return d_model / n_heads; }
  /// Width of one head's values, d_v = d_model / n_heads.
  std::size_t d_v() const { return d_model / n_heads; }

  /// Throws std::invalid_argument naming the first invalid setting.
  void validate() const;
  /// Sets one field from text, e.g. `set("d_model", "256")`; throws std::invalid_argument
  /// naming the key for an unknown key or a value that does not parse.
  void set(const std::string& key, const std::string& value);
  /// Applies `key=value`.
  void set(const std::string& assignment);
  /// The value of one field as text.
  std::string get(const std::string& key) const;
  /// Every settable key, in declaration order.
  static std::vector<std::string> keys();
  /// One line of help per key.
  static std::string describe_keys();
};

/// A named preset: `tiny`, `toy`, `csdn`, `nlp-tutorial`, `vowels`, `vowels-small` or
/// `vowels-tiny`. Throws std::invalid_argument listing the known names for any other.
Config preset(const std::string& name);
/// The names of all presets.
std::vector<std::string> preset_names();

/// Number of trainable numbers in one component, for the parameter table of chapter 01.
struct ParameterCount {
  std::string component;  ///< e.g. "encoder layer (x6)"
  std::size_t each;       ///< parameters of one instance
  std::size_t copies;     ///< how many instances the model has
  /// Parameters of all instances together: each × copies.
  std::size_t total() const { return each * copies; }
};

/// Parameter counts of every component of the model `config` describes, in model order.
std::vector<ParameterCount> parameter_counts(const Config& config);
/// Total parameters of the model.
std::size_t total_parameters(const Config& config);
/// The same count in double, so that a configuration no machine could hold (d_model = 4·10⁹)
/// gives a huge number rather than wrapping around (the memory estimates read it).
double parameter_count(const Config& config);

/// Per-component formulas, shared by the table above and the model's own registry tests.
namespace count {
/// A weight `[out, in]` plus, if `bias`, a bias `[out]`.
std::size_t linear(std::size_t in, std::size_t out, bool bias);
/// W_Q, W_K, W_V and W_O, each d_model -> d_model (the heads split d_model, they add nothing).
std::size_t multi_head_attention(const Config& c);
/// d_model -> d_ff -> d_model.
std::size_t feed_forward(const Config& c);
/// A gain and a shift per feature: 2 · d_model.
std::size_t layer_norm(const Config& c);
/// Self-attention, feed-forward and two LayerNorms.
std::size_t encoder_layer(const Config& c);
/// Masked self-attention, cross-attention, feed-forward and three LayerNorms.
std::size_t decoder_layer(const Config& c);
}  // namespace count

}  // namespace tfm
