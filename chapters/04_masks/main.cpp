// Chapter 04: masks.
//
// Attention lets every query position look at every key position. Two kinds of pairs must be
// blocked: keys that are padding (they are not words), and, in the decoder, keys that lie in
// the future (the word being predicted must not be visible). A mask says, for every
// (query, key) pair of every sentence, whether the pair is allowed: 1 = may attend, 0 = blocked.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <map>
#include <string>

#include "tfm/core/trace.hpp"
#include "tfm/data/vocabulary.hpp"
#include "tfm/layers/mask.hpp"
#include "tfm/machinery/command_line.hpp"

namespace {

// The components of the lines this program adds to the shape trace.
constexpr tfm::trace::Component traced_tokens("Tokens");
constexpr tfm::trace::Component traced_mask("Mask");

// The words behind the ids, so that a grid reads as sentences: a German source and an English
// target, as in reference 001 (ids 0 to 3 are chapter 02's reserved ones).
const std::map<std::int32_t, std::string> kSourceWords = {
    {4, "ein"}, {5, "ich"}, {6, "bitte"}, {7, "will"}, {8, "tee"}, {9, "kaltes"}, {11, "bier"}};
const std::map<std::int32_t, std::string> kTargetWords = {
    {5, "tea"}, {6, "i"}, {8, "beer"}, {10, "want"}};

std::string token(std::int32_t id, const std::map<std::int32_t, std::string>& words) {
  if (id == tfm::kPadId) return "pad";
  if (id == tfm::kBosId) return "bos";
  const auto word = words.find(id);
  return word == words.end() ? std::to_string(id) : word->second;
}

// Prints mask[b] as a 0/1 grid for every sentence b: one row per query token, one column per key token.
void print_mask(const std::string& name, const tfm::Mask& mask, const tfm::TokenIds& queries,
                const std::map<std::int32_t, std::string>& query_words, const tfm::TokenIds& keys,
                const std::map<std::int32_t, std::string>& key_words) {
  for (std::size_t b = 0; b < mask.shape(0); ++b) {
    std::printf("%s, sentence %zu (rows: query tokens, columns: key tokens)\n%12s", name.c_str(), b,
                "");
    for (std::size_t j = 0; j < mask.shape(2); ++j)
      std::printf("%7s", token(keys(b, j), key_words).c_str());
    std::printf("\n");
    for (std::size_t i = 0; i < mask.shape(1); ++i) {
      std::printf("%12s", token(queries(b, i), query_words).c_str());
      for (std::size_t j = 0; j < mask.shape(2); ++j) std::printf("%7d", mask(b, i, j));
      std::printf("\n");
    }
  }
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  return tfm::run_program([&] {
    tfm::CommandLine cli("ch04_masks",
                         "Chapter 04: padding masks, the subsequent (causal) mask, and "
                         "the masks of the encoder, the decoder and cross-attention.");
    cli.option("--query", "I", "the target position whose row of scores is masked at the end", "1")
        .option("--fill", "X", "what a blocked score becomes before the softmax (e.g. -inf)",
                "-1e9");
    if (!cli.parse(argc, argv)) return 0;
    const float fill = static_cast<float>(cli.number("--fill"));
    // A blocked score must lose to every allowed one: NaN or +inf would win, or poison the sum.
    if (std::isnan(fill) || fill == std::numeric_limits<float>::infinity())
      throw tfm::UsageError(
          "option '--fill' needs a number or -inf (a blocked score must be "
          "below every other), got " +
          cli.value("--fill"));

    // Two source sentences of 5 and 3 tokens ("ich will ein kaltes bier", "ein tee bitte"),
    // padded with id 0 to the longest, and their decoder inputs of 4 and 2 tokens ("<bos> i want
    // beer", "<bos> tea"), padded to 4. Words have ids from 4 on, after chapter 02's reserved ids
    // (0 <pad>, 1 <bos>, 2 <eos>, 3 <unk>).
    const tfm::TokenIds src = {{5, 7, 4, 9, 11}, {4, 8, 6, 0, 0}};
    const tfm::TokenIds tgt = {{tfm::kBosId, 6, 10, 8}, {tfm::kBosId, 5, 0, 0}};
    const std::size_t batch = src.shape(0), src_len = src.shape(1), tgt_len = tgt.shape(1);
    const std::size_t query = cli.count("--query", 0, tgt_len - 1);

    tfm::trace::Enable trace;
    traced_tokens(src, "source, padded", "src", "batch, src_len");
    traced_tokens(tgt, "target, padded", "tgt", "batch, tgt_len");
    std::printf("\n");

    // Encoder self-attention: queries and keys are both the source; only padding is blocked.
    const tfm::Mask src_mask = tfm::padding_mask(src, /*len_q=*/src_len);
    traced_mask(src_mask, "encoder: source padding", "src_mask", "batch, src_len, src_len");
    print_mask("encoder self-attention mask", src_mask, src, kSourceWords, src, kSourceWords);

    // Decoder self-attention: target padding AND no look-ahead.
    const tfm::Mask tgt_pad = tfm::padding_mask(tgt, /*len_q=*/tgt_len);
    const tfm::Mask causal = tfm::subsequent_mask(batch, tgt_len);
    const tfm::Mask tgt_mask = tfm::combine_masks(tgt_pad, causal);  // = decoder_self_mask(tgt)
    traced_mask(tgt_pad, "decoder: target padding", "tgt_pad", "batch, tgt_len, tgt_len");
    traced_mask(causal, "decoder: subsequent", "causal", "batch, tgt_len, tgt_len");
    traced_mask(tgt_mask, "decoder: padding AND subsequent", "tgt_mask", "batch, tgt_len, tgt_len");
    print_mask("target padding mask", tgt_pad, tgt, kTargetWords, tgt, kTargetWords);
    print_mask("subsequent mask", causal, tgt, kTargetWords, tgt, kTargetWords);
    print_mask("decoder self-attention mask (both)", tgt_mask, tgt, kTargetWords, tgt,
               kTargetWords);
    std::printf("decoder_self_mask(tgt) gives the same mask: %s\n\n",
                tfm::decoder_self_mask(tgt) == tgt_mask ? "yes" : "NO");

    // [cross mask]
    // Cross-attention: queries come from the target, keys and values from the encoder's output of
    // the source, so the mask blocks the SOURCE's padding, one row per target position.
    const tfm::Mask cross_mask = tfm::padding_mask(src, /*len_q=*/tgt_len);
    // [cross mask]
    traced_mask(cross_mask, "cross: source padding", "cross_mask", "batch, tgt_len, src_len");
    print_mask("cross-attention mask", cross_mask, tgt, kTargetWords, src, kSourceWords);

    // [apply mask]
    // What attention does with a mask: blocked scores become -1e9 before the softmax, so their
    // weights are exp(-1e9 - max) = 0 and the allowed weights still sum to 1.
    const auto masked_softmax = [&](const float* scores, const std::uint8_t* allowed, float* filled,
                                    float* weights) {
      float max = -INFINITY, sum = 0.0f;
      for (std::size_t j = 0; j < 4; ++j) {
        filled[j] = allowed[j] ? scores[j] : fill;
        max = std::max(max, filled[j]);
      }
      for (std::size_t j = 0; j < 4; ++j) sum += weights[j] = std::exp(filled[j] - max);
      for (std::size_t j = 0; j < 4; ++j) weights[j] /= sum;
    };
    // [apply mask]
    const float scores[4] = {2.0f, 1.0f, 0.5f, 3.0f};  // made-up scores of one query
    const std::size_t b = 1, i = query;                // sentence 1
    const auto print_row = [&](const char* title, const std::uint8_t* allowed) {
      float filled[4], weights[4];
      masked_softmax(scores, allowed, filled, weights);
      if (*title) std::printf("%s\n", title);
      std::printf("  %-22s", "mask");
      for (std::size_t j = 0; j < 4; ++j) std::printf("%9d", allowed[j]);
      std::printf("\n  %-22s", "scores");
      for (float v : scores) std::printf("%9.2f", v);
      std::printf("\n  %-22s", ("filled with " + cli.value("--fill")).c_str());
      for (float v : filled) std::printf("%9.3g", v);
      std::printf("\n  %-22s", "softmax");
      for (float w : weights) std::printf("%9.4f", w);
      std::printf("\n");
    };
    std::uint8_t row[4];
    for (std::size_t j = 0; j < 4; ++j) row[j] = tgt_mask(b, i, j);
    std::printf("One row of decoder self-attention (sentence %zu, query %zu):\n", b, i);
    print_row("", row);
    const std::uint8_t none[4] = {0, 0, 0, 0};
    print_row("\nA query that may see no key at all (every pair blocked):", none);
    return 0;
  });
}
