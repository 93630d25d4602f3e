// Chapter 05: scaled dot-product attention, forward and backward.
//
// Every query position asks "which key positions are like me?": the scores Q Kᵀ / sqrt(d_k), turned
// into weights by a softmax over the keys, average the value rows. Here Q = K = V come straight
// from a fixed sentence's embeddings, split into heads; chapter 06 adds the learned projections.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "tfm/core/random.hpp"
#include "tfm/core/trace.hpp"
#include "tfm/layers/attention.hpp"
#include "tfm/layers/mask.hpp"
#include "tfm/machinery/command_line.hpp"
#include "tfm/pictures/attention_pictures.hpp"
#include "tfm/pictures/heatmap.hpp"

namespace {

// The components of the lines this program adds to the shape trace.
constexpr tfm::trace::Component traced_input("Input");

// The nlp-tutorial's source sentence (reference 001), with its vocabulary; "P" is padding (id 0).
// These are nlp-tutorial's ids, not chapter 02's (ich: 4): only P = 0 = <pad> matters here.
const std::vector<std::string> kWords = {"P", "ich", "mochte", "ein", "bier"};
const tfm::TokenIds kSentence = {{1, 2, 3, 4, 0}};  // "ich mochte ein bier P", [batch 1, len 5]

// The words of sentence b: the labels of the grids and heat maps.
std::vector<std::string> sentence_words(std::size_t b) {
  std::vector<std::string> out;
  for (std::size_t j = 0; j < kSentence.shape(1); ++j) out.push_back(kWords[kSentence(b, j)]);
  return out;
}

// Prints weights[b, h] as a grid: one row per query token, one column per key token.
void print_weights(const std::string& title, const tfm::Tensor4& weights, std::size_t b,
                   std::size_t h) {
  std::printf("%s (sentence %zu, head %zu; rows: queries, columns: keys)\n", title.c_str(), b, h);
  tfm::print_weight_grid(weights, b, h, sentence_words(b), sentence_words(b), 8, 2);
  std::printf("\n");
}

// Writes head 0's weights under each mask as one figure: a titled map per mask, side by side.
void write_weights_svg(const std::string& path, const std::vector<tfm::Tensor2>& maps,
                       const std::vector<std::string>& titles) {
  tfm::HeatmapOptions options;
  options.title = "Head 0's self-attention weights";
  options.x_label = "key";
  options.y_label = "query";
  options.row_labels = options.column_labels = sentence_words(0);
  options.min_value = 0.0f;
  options.max_value = 1.0f;
  tfm::write_heatmap_panels_svg(path, maps, titles, maps.size(), options);
  std::printf("wrote %s\n\n", path.c_str());
}

// How spread the scores S = Q K^T / sqrt(d_k) are, and how peaked the weights: a softmax of
// widely spread scores puts almost all of a row's weight on one key.
void print_sharpness(const tfm::Tensor4& q, const tfm::Tensor4& k, const tfm::Tensor4& weights) {
  const std::size_t H = q.shape(1), L = q.shape(2), d_k = q.shape(3);
  double sum = 0.0, sum_sq = 0.0, largest = 0.0;
  for (std::size_t h = 0; h < H; ++h)
    for (std::size_t i = 0; i < L; ++i) {
      double row_max = 0.0;
      for (std::size_t j = 0; j < L; ++j) {
        double dot = 0.0;
        for (std::size_t c = 0; c < d_k; ++c) dot += double(q(0, h, i, c)) * double(k(0, h, j, c));
        const double score = dot / std::sqrt(double(d_k));
        sum += score;
        sum_sq += score * score;
        row_max = std::max(row_max, double(weights(0, h, i, j)));
      }
      largest += row_max;
    }
  const double n = double(H * L * L), mean = sum / n;
  std::printf("Spread (std) of the scores S: %.2f; largest weight of a row, on average: %.2f\n\n",
              std::sqrt(std::max(0.0, sum_sq / n - mean * mean)), largest / double(H * L));
}

}  // namespace

int main(int argc, char** argv) {
  return tfm::run_program([&] {
    tfm::CommandLine cli("ch05_self_attention",
                         "Chapter 05: scaled dot-product attention on one sentence, with and "
                         "without masks, forward and backward.");
    cli.option("--heads", "N", "number of heads", "2")
        .option("--d-k", "N", "size of each head's queries, keys and values", "4")
        .option("--seed", "N", "seed of the random embedding table", "0")
        .flag("--no-scale",
              "leave out the division by sqrt(d_k): the queries are multiplied by "
              "sqrt(d_k) first, which cancels it")
        .option("--svg", "PATH", "heat maps of head 0's weights with each mask",
                "attention_weights.svg");
    if (!cli.parse(argc, argv)) return 0;
    const std::size_t H = cli.count("--heads", 1, 64), d_k = cli.count("--d-k", 1, 1024);
    const std::size_t B = kSentence.shape(0), L = kSentence.shape(1), d_model = H * d_k;

    // [inputs]
    // A random embedding table [vocab, d_model] (chapter 03 scales it and adds positions; plain
    // rows are enough here). Sentence b's token i becomes x[b, i, :], and head h reads its own
    // slice x[b, i, h*d_k : (h+1)*d_k]. Self-attention: queries, keys and values are all x.
    tfm::Rng rng(cli.count("--seed"));
    tfm::Tensor2 table = tfm::Tensor2::from_shape({kWords.size(), d_model});
    rng.fill_normal(table, 0.0f, 1.0f);
    tfm::Tensor4 x = tfm::Tensor4::from_shape({B, H, L, d_k});
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t h = 0; h < H; ++h)
        for (std::size_t i = 0; i < L; ++i)
          for (std::size_t j = 0; j < d_k; ++j) x(b, h, i, j) = table(kSentence(b, i), h * d_k + j);
    const tfm::Tensor4 &k = x, &v = x;
    // [inputs]
    // --no-scale: Q sqrt(d_k) Kᵀ / sqrt(d_k) = Q Kᵀ, the scores without the scaling.
    const tfm::Tensor4 q = cli.flag_set("--no-scale") ? tfm::Tensor4(x * std::sqrt(float(d_k))) : x;

    tfm::trace::Enable trace;
    traced_input(kSentence, "token ids", "ids", "batch, len");
    traced_input(x, "embedded, split into heads", "Q = K = V", "batch, heads, len, d_k");
    if (cli.flag_set("--no-scale")) std::printf("--no-scale: Q = x sqrt(d_k), K = V = x\n");
    std::printf("\n");

    tfm::ScaledDotProductAttention attention;
    {
      tfm::trace::Scope scope("Self-attention, no mask");
      attention.forward(q, k, v);
    }
    std::printf("\n");
    print_weights("Weights without a mask", attention.weights(), 0, 0);
    print_sharpness(q, k, attention.weights());
    std::printf(
        "With Q = K, a token's most similar key is usually itself: the diagonal is heavy.\n"
        "That is why chapter 06 gives queries and keys their own learned projections.\n"
        "The padding token P still receives weight: nothing has told attention it is empty.\n\n");

    // [padding mask]
    const tfm::Mask pad_mask = tfm::padding_mask(kSentence, /*len_q=*/L);
    {
      tfm::trace::Scope scope("Self-attention, padding mask (encoder)");
      attention.forward(q, k, v, &pad_mask);
    }
    // [padding mask]
    std::printf("\n");
    print_weights("Weights with the padding mask", attention.weights(), 0, 0);
    const tfm::Tensor2 padding_weights = tfm::attention_head(attention.weights(), 0, 0);

    // [causal mask]
    const tfm::Mask causal_mask = tfm::decoder_self_mask(kSentence);  // padding AND subsequent
    tfm::Tensor4 context;
    {
      tfm::trace::Scope scope("Self-attention, padding and causal mask (decoder)");
      context = attention.forward(q, k, v, &causal_mask);
    }
    // [causal mask]
    std::printf("\n");
    print_weights("Weights with the causal mask", attention.weights(), 0, 0);
    std::printf(
        "Row i spreads its weight over keys 0..i only; the first token can only see itself.\n"
        "The query P may not see itself (it is padding), but its row is not empty, so it\n"
        "still averages the real tokens before it.\n");
    write_weights_svg(cli.value("--svg"),
                      {padding_weights, tfm::attention_head(attention.weights(), 0, 0)},
                      {"padding mask", "padding and causal mask"});

    // A query that may attend to nothing: every score is -1e9, the softmax is uniform, not NaN.
    tfm::Mask blocked = causal_mask;
    for (std::size_t j = 0; j < L; ++j) blocked(0, 0, j) = 0;
    tfm::trace::Enable quiet(false);
    tfm::ScaledDotProductAttention probe;
    probe.forward(q, k, v, &blocked);
    std::printf("A query blocked from every key gets uniform weights (1/%zu = %.2f), not NaN:", L,
                1.0 / double(L));
    for (std::size_t j = 0; j < L; ++j) std::printf(" %.2f", probe.weights()(0, 0, 0, j));
    std::printf("\n\n");

    // [backward]
    // Pretend a loss L = sum(context * g) sits on top: its gradient with respect to the context is
    // g. backward() turns it into the gradients with respect to q, k and v.
    tfm::Tensor4 g = tfm::Tensor4::from_shape(context.shape());
    rng.fill_normal(g, 0.0f, 1.0f);
    tfm::ScaledDotProductAttention::Grads grads;
    {
      tfm::trace::Enable on;
      tfm::trace::Scope scope("Backward (causal mask)");
      grads = attention.backward(g);
    }
    // [backward]

    // Check three entries against a central finite difference of L (in double).
    const auto loss = [&](const tfm::Tensor4& qq, const tfm::Tensor4& kk, const tfm::Tensor4& vv) {
      tfm::ScaledDotProductAttention fresh;
      const tfm::Tensor4 c = fresh.forward(qq, kk, vv, &causal_mask);
      double sum = 0.0;
      for (std::size_t i = 0; i < c.size(); ++i) sum += double(c.data()[i]) * double(g.data()[i]);
      return sum;
    };
    const float eps = 1e-2f;
    std::printf(
        "\nOne entry of each gradient against a finite difference (L(x+eps) - L(x-eps)) / 2eps:\n");
    const std::size_t i = L - 2, j = 1;  // token "bier" (as query or key), column 1 of head 0
    for (const char which : {'q', 'k', 'v'}) {
      tfm::Tensor4 plus_q = q, plus_k = k, plus_v = v, minus_q = q, minus_k = k, minus_v = v;
      tfm::Tensor4& plus = which == 'q' ? plus_q : which == 'k' ? plus_k : plus_v;
      tfm::Tensor4& minus = which == 'q' ? minus_q : which == 'k' ? minus_k : minus_v;
      plus(0, 0, i, j) += eps;
      minus(0, 0, i, j) -= eps;
      const double numeric =
          (loss(plus_q, plus_k, plus_v) - loss(minus_q, minus_k, minus_v)) / (2.0 * double(eps));
      const tfm::Tensor4& analytic = which == 'q'   ? grads.query
                                     : which == 'k' ? grads.key
                                                    : grads.value;
      std::printf("  grad_%c[0, 0, %zu, %zu]   backward %+.5f   finite difference %+.5f\n", which,
                  i, j, double(analytic(0, 0, i, j)), numeric);
    }
    std::printf("(Q, K and V are one tensor x here, so dL/dx would be dQ + dK + dV.)\n");
    return 0;
  });
}
