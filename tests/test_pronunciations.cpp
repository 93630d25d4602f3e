// The pronunciation project's data: Festival's CMUdict reader on good and malformed lines,
// several pronunciations per word, the split by word, the bucketed batches, the words a user
// types, and padding that changes nothing in a word's logits.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <set>
#include <string>
#include <vector>
#include <xtensor/xview.hpp>

#include "pronounce/pronunciations.hpp"
#include "tfm/model/transformer.hpp"

using namespace tfm;
using namespace pronounce;

namespace {

using Phones = std::vector<std::string>;

// The message parse_festival_lexicon throws for `text`, or "" if it reads it.
std::string parse_error(const std::string& text) {
  try {
    parse_festival_lexicon(text, "dict.out");
  } catch (const DictionaryError& e) {
    return e.what();
  }
  return "";
}

// A made-up dictionary of `n` words of 1..20 letters, one pronunciation each (a phoneme per
// letter), some with a second pronunciation.
std::vector<DictionaryWord> synthetic_words(std::size_t n) {
  std::vector<DictionaryWord> words;
  for (std::size_t i = 0; i < n; ++i) {
    std::string w;
    const std::size_t length = 1 + (i * 7) % 20;
    for (std::size_t k = 0; k < length; ++k) w += static_cast<char>('a' + (i * 31 + k * 7) % 26);
    w += static_cast<char>('a' + i % 26);
    w += static_cast<char>('a' + (i / 26) % 26);
    w += static_cast<char>('a' + (i / 676) % 26);  // distinct words
    DictionaryWord d{w, {Phones(w.size(), "t")}};
    if (i % 5 == 0) d.pronunciations.push_back(Phones(w.size() + 1, "d"));
    words.push_back(d);
  }
  return words;
}

}  // namespace

TEST_CASE(
    "pronunciations: Festival's lexicon is read with stress dropped, ax as ah, entries merged",
    "[pronunciations]") {
  const std::string text =
      "MNCL\n"
      "(\"aaberg\" nil (((aa) 1) ((b er g) 0)))\n"
      "(\"read\" v (((r iy d) 1)))\n"
      "(\"read\" v (((r eh d) 1)))\n"
      "(\"Read\" n (((r iy d) 1)))\n"  // capitals: the same word, the same pronunciation once
      "\n"
      "(\"a\" dt (((ax) 0)))\n"
      "(\"a\" n (((ey) 1)))\n";
  const std::vector<DictionaryWord> words = parse_festival_lexicon(text, "dict.out");
  REQUIRE(words.size() == 3);
  CHECK(words[0].word == "a");  // sorted
  CHECK(words[0].pronunciations == std::vector<Phones>{{"ah"}, {"ey"}});
  CHECK(words[1].word == "aaberg");
  CHECK(words[1].pronunciations == std::vector<Phones>{{"aa", "b", "er", "g"}});
  CHECK(words[2].word == "read");
  CHECK(words[2].pronunciations == std::vector<Phones>{{"r", "iy", "d"}, {"r", "eh", "d"}});

  CHECK(phoneme_symbols().size() == 39);
  CHECK(stressless_phoneme("aa1") == "aa");
  CHECK(stressless_phoneme("ax0") == "ah");
  CHECK(stressless_phoneme("zh") == "zh");
  CHECK_THROWS_WITH(stressless_phoneme("qq1"), Catch::Contains("unknown phone 'qq1'"));
}

TEST_CASE("pronunciations: a malformed line is an error naming the file and the line",
          "[pronunciations][bad-input]") {
  const std::string good = "MNCL\n(\"a\" nil (((ey) 1)))\n";
  struct Case {
    std::string line, message;
  };
  const std::vector<Case> cases = {
      {"(\"b nil (((b iy) 1)))", "dict.out, line 3: the word's quote is not closed"},
      {"\"b\" nil (((b iy) 1)))", "dict.out, line 3: expected '(' to open the entry"},
      {"(\"b\" nil (((b qq) 1)))", "dict.out, line 3: unknown phone 'qq'"},
      {"(\"b2\" nil (((b iy) 1)))",
       "dict.out, line 3: the word 'b2' has a character other than a letter a-z"},
      {"(\"\" nil (((b iy) 1)))", "dict.out, line 3: the word is empty"},
      {"(\"b\" nil ())", "dict.out, line 3: the word 'b' has no phones"},
      {"(\"b\" nil ((() 1)))", "dict.out, line 3: a syllable without phones"},
      {"(\"b\" nil (((b iy) 3)))", "dict.out, line 3: a stress must be 0, 1 or 2, got '3'"},
      {"(\"b\" nil (((b iy) 1))) extra", "dict.out, line 3: unexpected text after the entry"},
      {"(\"b\" nil (((b iy) 1))", "dict.out, line 3: expected ')' to close the entry"},
      {"(\"b\" nil (((b iy) 1)", "dict.out, line 3: expected '(' to open a syllable"},
      {"(\"b\" (((b iy) 1)))", "dict.out, line 3: expected a part of speech"},
  };
  for (const Case& c : cases) {
    INFO(c.line);
    CHECK_THAT(parse_error(good + c.line + "\n"), Catch::Contains(c.message));
  }
  CHECK_THAT(parse_error("(\"a\" nil (((ey) 1)))\n"),
             Catch::Contains("dict.out, line 1: expected the header 'MNCL'"));
  CHECK_THAT(parse_error("MNCL\n"),
             Catch::Contains("dict.out: the dictionary has a header but no entries"));
  CHECK_THAT(parse_error(""), Catch::Contains("dict.out: the dictionary is empty"));
  CHECK(parse_error(good).empty());
  CHECK_THROWS_WITH(read_festival_lexicon("/nonexistent/dict.out"),
                    Catch::Contains("cannot open dictionary '/nonexistent/dict.out'"));
}

TEST_CASE("pronunciations: the split is by word, deterministic, about 90/5/5, no word in two parts",
          "[pronunciations]") {
  // The same answer every time, from the spelling alone.
  CHECK(word_split("aaberg") == word_split(std::string("aaberg")));
  REQUIRE(std::filesystem::exists(kCmudictPath));  // festlex-cmu, a build package
  const std::vector<DictionaryWord> words = read_festival_lexicon(kCmudictPath);
  CHECK(words.size() > 100000);
  const PronunciationData data(words);
  std::set<std::string> seen;
  std::size_t total = 0;
  for (const WordSplit split : {WordSplit::kTrain, WordSplit::kHeldOut, WordSplit::kTest}) {
    for (const DictionaryWord& w : data.words(split)) {
      CHECK(word_split(w.word) == split);
      seen.insert(w.word);
    }
    total += data.words(split).size();
  }
  CHECK(seen.size() == total);  // no word in two parts
  CHECK(total == words.size());
  const double n = static_cast<double>(total);
  CHECK(static_cast<double>(data.words(WordSplit::kTrain).size()) / n == Approx(0.90).margin(0.01));
  CHECK(static_cast<double>(data.words(WordSplit::kHeldOut).size()) / n ==
        Approx(0.05).margin(0.01));
  CHECK(static_cast<double>(data.words(WordSplit::kTest).size()) / n == Approx(0.05).margin(0.01));
  // Festival's copy keeps few words with several pronunciations (154, "read", "live", ...); they
  // keep them all.
  std::size_t several = 0;
  for (const DictionaryWord& w : words) several += w.pronunciations.size() > 1;
  CHECK(several > 100);
  CHECK(data.max_letters() <= 64);
}

TEST_CASE(
    "pronunciations: training batches are deterministic, bucketed, and deal every pair once an "
    "epoch",
    "[pronunciations]") {
  const PronunciationData data(synthetic_words(2000));
  const std::size_t batch_size = 16, per_epoch = data.num_training_pairs() / batch_size;
  const Batch first = data.training_batch(3, batch_size, 7);
  data.training_batch(per_epoch + 5, batch_size, 7);  // another epoch in between
  data.training_batch(0, batch_size, 8);              // another seed
  const Batch again = data.training_batch(3, batch_size, 7);
  CHECK(bool(first.src == again.src));
  CHECK(bool(first.tgt_out == again.tgt_out));
  CHECK_FALSE(bool(data.training_batch(3, batch_size, 8).src == first.src));

  // One epoch: every (word, pronunciation) at most once, all but fewer than a batch's worth.
  std::multiset<std::string> dealt;
  std::size_t cells = 0, padding = 0;
  for (std::size_t b = 0; b < per_epoch; ++b) {
    const Batch batch = data.training_batch(b, batch_size, 7);
    REQUIRE(batch.size() == batch_size);
    for (std::size_t r = 0; r < batch.size(); ++r) {
      std::string key;
      for (std::size_t t = 0; t < batch.src.shape(1); ++t)
        key += std::to_string(batch.src(r, t)) + ",";
      key += "|" + std::to_string(batch.tgt_out(r, 0));
      dealt.insert(key);
      for (std::size_t t = 0; t < batch.src.shape(1); ++t) padding += batch.src(r, t) == kPadId;
      cells += batch.src.shape(1);
    }
  }
  CHECK(dealt.size() == per_epoch * batch_size);
  CHECK(std::set<std::string>(dealt.begin(), dealt.end()).size() == dealt.size());
  CHECK(data.num_training_pairs() - dealt.size() < batch_size);
  // Words of 4 to 23 letters: unsorted, about a third of a batch would be padding; bucketed,
  // almost none.
  INFO("padding " << padding << " of " << cells);
  CHECK(static_cast<double>(padding) < 0.05 * static_cast<double>(cells));
}

TEST_CASE("pronunciations: a batch pads both sides; <bos> leads tgt_in and <eos> ends tgt_out",
          "[pronunciations]") {
  const PronunciationData data(synthetic_words(200));
  const DictionaryWord shorter{"ab", {{"ae", "b"}}}, longer{"abcd", {{"ae", "b", "s", "iy", "d"}}};
  const Batch b = data.pair_batch({{&shorter, 0}, {&longer, 0}});
  REQUIRE(b.src.shape(1) == 4);
  REQUIRE(b.tgt_in.shape(1) == 6);
  CHECK(b.src(0, 2) == kPadId);
  CHECK(b.src(0, 3) == kPadId);
  CHECK(b.tgt_in(0, 0) == kBosId);
  CHECK(b.tgt_in(0, 1) == data.phonemes().id("ae"));
  CHECK(b.tgt_out(0, 1) == data.phonemes().id("b"));
  CHECK(b.tgt_out(0, 2) == kEosId);
  CHECK(b.tgt_out(0, 3) == kPadId);
  CHECK(b.tgt_out(1, 5) == kEosId);
}

TEST_CASE("pronunciations: words a user types are checked and named",
          "[pronunciations][bad-input]") {
  const PronunciationData data(synthetic_words(200));
  const TokenIds src = data.encode_words({"Hello", "a"}, 64);
  REQUIRE(src.shape(0) == 2);
  REQUIRE(src.shape(1) == 5);
  CHECK(src(0, 0) == data.letters().id("h"));  // capitals are lowercased
  CHECK(src(1, 1) == kPadId);
  CHECK_THROWS_WITH(
      data.encode_words({"H3llo"}, 64),
      "the word \"H3llo\" has the character '3' at index 1; the model knows only the letters a-z");
  CHECK_THROWS_WITH(data.encode_words({"caf\xc3\xa9"}, 64),
                    Catch::Contains("the character '\xc3\xa9' at index 3"));
  CHECK_THROWS_WITH(data.encode_words({"ok", ""}, 64), "a word is empty");
  CHECK_THROWS_WITH(data.encode_words({std::string(65, 'a')}, 64),
                    Catch::Contains("has 65 letters but the model's positional table holds 64"));
}

TEST_CASE(
    "pronunciations: padding changes nothing — each word of a mixed batch gets its own logits",
    "[pronunciations][padding]") {
  const PronunciationData data(synthetic_words(200));
  Config config = preset("vowels-small");
  config.src_vocab_size = data.letters().size();
  config.tgt_vocab_size = data.phonemes().size();
  config.d_model = 32;
  config.n_heads = 4;
  config.d_ff = 64;
  config.dropout = 0.0f;
  Transformer model(config, 11);
  model.set_training(false);
  const std::vector<DictionaryWord> words = {
      {"a", {{"ey"}}},
      {"pronunciation", {{"p", "r", "ah", "n", "ah", "n", "s", "iy", "ey", "sh", "ah", "n"}}},
      {"cat", {{"k", "ae", "t"}}},
      {"read", {{"r", "iy", "d"}, {"r", "eh", "d"}}}};
  std::vector<std::pair<const DictionaryWord*, std::size_t>> pairs;
  for (const DictionaryWord& w : words) pairs.emplace_back(&w, w.pronunciations.size() - 1);
  const Batch mixed = data.pair_batch(pairs);
  const Tensor3 together = model.forward(mixed.src, mixed.tgt_in);
  for (std::size_t r = 0; r < pairs.size(); ++r) {
    const Batch alone = data.pair_batch({pairs[r]});
    const Tensor3 own = model.forward(alone.src, alone.tgt_in);
    REQUIRE(own.shape(1) <= together.shape(1));
    INFO("word " << words[r].word);
    float largest = 0;
    for (std::size_t t = 0; t < own.shape(1); ++t)
      for (std::size_t v = 0; v < own.shape(2); ++v)
        largest = std::max(largest, std::abs(own(0, t, v) - together(r, t, v)));
    CHECK(largest < 1e-5f);
  }
  // And the check can fail: without the padding mask, a padded word's logits do change. Here the
  // source pads are replaced by a letter, which the model then reads.
  TokenIds unmasked = mixed.src;
  for (auto& id : unmasked)
    if (id == kPadId) id = data.letters().id("e");
  const Tensor3 changed = model.forward(unmasked, mixed.tgt_in);
  const Batch alone = data.pair_batch({pairs[0]});
  const Tensor3 own = model.forward(alone.src, alone.tgt_in);
  float largest = 0;
  for (std::size_t v = 0; v < own.shape(2); ++v)
    largest = std::max(largest, std::abs(own(0, 0, v) - changed(0, 0, v)));
  CHECK(largest > 1e-3f);
}
