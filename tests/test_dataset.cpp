#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "tfm/core/trace.hpp"
#include "tfm/data/dataset.hpp"
#include "tfm/tasks/copy_sequences.hpp"
#include "tfm/tasks/toy_translation.hpp"
#include "tfm/tasks/vowel_restoration.hpp"

using namespace tfm;
using Catch::Contains;

namespace {

// A file in the temporary directory, unique to this process, removed at the end of the test.
struct TempFile {
  TempFile(const std::string& name, const std::string& content)
      : path((std::filesystem::temp_directory_path() /
              ("tfm_dataset_" + std::to_string(::getpid()) + "_" + name))
                 .string()) {
    std::ofstream(path, std::ios::binary) << content;
  }
  ~TempFile() { std::filesystem::remove(path); }
  std::string path;
};

// A [batch, len] tensor of ids as rows, which Catch can compare and print.
using Rows = std::vector<std::vector<std::int32_t>>;
Rows rows(const TokenIds& t) {
  Rows out;
  for (std::size_t b = 0; b < t.shape(0); ++b) out.push_back(row(t, b));
  return out;
}

// Character ids of text in the vowel vocabulary.
std::vector<std::int32_t> chars(const std::string& text) {
  return vowel_vocabulary().encode(text, OnUnknown::kThrow);
}

}  // namespace

// ---------------------------------------------------------------- toy translation (reference 001)

TEST_CASE("ToyTranslation: nlp-tutorial's pairs with exact ids", "[dataset][toy]") {
  const ToyTranslation toy;
  REQUIRE(toy.size() == 2);
  CHECK(toy.source_vocabulary().size() == 9);   // 4 reserved + ich mochte ein bier cola
  CHECK(toy.target_vocabulary().size() == 10);  // 4 reserved + i want a beer coke .
  trace::Capture capture;
  const Batch batch = toy.all();
  // nlp-tutorial: src_vocab {P:0, ich:1, mochte:2, ein:3, bier:4, cola:5},
  // tgt_vocab {P:0, i:1, want:2, a:3, beer:4, coke:5, S:6, E:7, .:8}. Here P/S/E are the
  // reserved 0/1/2 and every word id is nlp-tutorial's + 3.
  CHECK(rows(batch.src) == Rows({{4, 5, 6, 7, 0}, {4, 5, 6, 8, 0}}));
  CHECK(rows(batch.tgt_in) == Rows({{1, 4, 5, 6, 7, 9}, {1, 4, 5, 6, 8, 9}}));
  CHECK(rows(batch.tgt_out) == Rows({{4, 5, 6, 7, 9, 2}, {4, 5, 6, 8, 9, 2}}));
  // The reference's three strings, with P/S/E spelled <pad>/<bos>/<eos>.
  CHECK(toy.source_vocabulary().decode(row(batch.src, 0)) == "ich mochte ein bier <pad>");
  CHECK(toy.target_vocabulary().decode(row(batch.tgt_in, 0)) == "<bos> i want a beer .");
  CHECK(toy.target_vocabulary().decode(row(batch.tgt_out, 1)) == "i want a coke . <eos>");

  const auto lines = capture.lines();
  REQUIRE(lines.size() == 3);
  CHECK_THAT(lines[0], Contains("[ToyTranslation] encoder input") && Contains("src -> [2, 5]") &&
                           Contains("(batch, src_len)"));
  CHECK_THAT(lines[1], Contains("tgt_in -> [2, 6]") && Contains("(batch, tgt_len)"));
  CHECK_THAT(lines[2], Contains("tgt_out -> [2, 6]"));

  // A sub-batch, in the order asked for.
  CHECK(rows(toy.batch({1}).src) == Rows({{4, 5, 6, 8, 0}}));
}

TEST_CASE("ToyTranslation: unknown words and sentences that do not fit are errors",
          "[dataset][toy]") {
  const Vocabulary src(Tokenization::kWords, {"ich", "ein"});
  const Vocabulary tgt(Tokenization::kWords, {"i", "a"});
  CHECK_THROWS_WITH(ToyTranslation({{"ich bin", "i a"}}, src, tgt, 4, 4),
                    Contains("unknown word 'bin' at index 1"));
  CHECK_THROWS_WITH(ToyTranslation({{"ich ein ich", "i"}}, src, tgt, 2, 4),
                    Contains("has 3 words, more than src_len = 2"));
  // Two target words need tgt_len 3: <bos> i a / i a <eos>.
  CHECK_NOTHROW(ToyTranslation({{"ich", "i a"}}, src, tgt, 2, 3));
  CHECK_THROWS_WITH(ToyTranslation({{"ich", "i a"}}, src, tgt, 2, 2),
                    Contains("more than tgt_len = 2"));
}

// ------------------------------------------------------------------------------------ copy task

TEST_CASE("CopySequences: shapes and the copy-with-shift convention", "[dataset][copy]") {
  const CopySequences copy(10, 7);
  CHECK(copy.vocabulary().size() == 14);
  CHECK(copy.vocabulary().id("1") == 4);
  CHECK(copy.vocabulary().id("10") == 13);
  Rng rng(5);
  trace::Capture capture;
  const Batch batch = copy.batch(64, rng);
  REQUIRE(batch.src.shape() == TokenIds::shape_type{64, 7});
  REQUIRE(batch.tgt_in.shape() == TokenIds::shape_type{64, 8});
  REQUIRE(batch.tgt_out.shape() == TokenIds::shape_type{64, 8});
  std::set<std::int32_t> seen;
  for (std::size_t b = 0; b < 64; ++b) {
    CHECK(batch.tgt_in(b, 0) == kBosId);
    CHECK(batch.tgt_out(b, 7) == kEosId);
    for (std::size_t t = 0; t < 7; ++t) {
      const std::int32_t s = batch.src(b, t);
      CHECK(s >= 4);
      CHECK(s <= 13);
      CHECK(batch.tgt_in(b, t + 1) == s);
      CHECK(batch.tgt_out(b, t) == s);
      seen.insert(s);
    }
  }
  CHECK(seen.size() == 10);  // 448 draws reach every symbol
  CHECK_THAT(capture.lines().at(0),
             Contains("[CopySequences] encoder input") && Contains("[64, 7]"));
  CHECK_THAT(capture.lines().at(2), Contains("tgt_out -> [64, 8]"));
}

TEST_CASE("CopySequences: the seed fixes the batch", "[dataset][copy]") {
  const CopySequences copy;
  Rng a(42), b(42), c(43);
  const Batch first = copy.batch(8, a), same = copy.batch(8, b), other = copy.batch(8, c);
  CHECK(rows(first.src) == rows(same.src));
  CHECK(rows(first.tgt_in) == rows(same.tgt_in));
  CHECK(rows(first.tgt_out) == rows(same.tgt_out));
  CHECK(rows(first.src) != rows(other.src));
  // The generator moves on: the next batch is a new one.
  CHECK(rows(copy.batch(8, a).src) != rows(first.src));
}

// --------------------------------------------------------------------------------- batch sampler

TEST_CASE("BatchSampler: shuffled epochs are seeded permutations of full batches",
          "[dataset][sampler]") {
  BatchSampler sampler(10, 3, Order::kShuffled, 7);
  CHECK(sampler.batches_per_epoch() == 3);  // the tenth example does not fill a batch
  std::vector<std::size_t> epoch1, epoch2;
  for (int i = 0; i < 3; ++i) {
    const auto batch = sampler.next();
    CHECK(batch.size() == 3);
    epoch1.insert(epoch1.end(), batch.begin(), batch.end());
  }
  CHECK(sampler.epoch() == 1);
  for (int i = 0; i < 3; ++i) {
    const auto batch = sampler.next();
    epoch2.insert(epoch2.end(), batch.begin(), batch.end());
  }
  CHECK(sampler.epoch() == 2);
  CHECK(std::set<std::size_t>(epoch1.begin(), epoch1.end()).size() == 9);  // no repeats
  CHECK(*std::max_element(epoch1.begin(), epoch1.end()) <= 9);
  CHECK(epoch1 != epoch2);  // reshuffled

  BatchSampler again(10, 3, Order::kShuffled, 7);
  CHECK(again.next() == std::vector<std::size_t>(epoch1.begin(), epoch1.begin() + 3));
  CHECK(BatchSampler(10, 3, Order::kShuffled, 8).next() != again.next());
}

TEST_CASE("BatchSampler: skip(n) is n calls of next(), across epochs, in both orders",
          "[dataset][sampler]") {
  for (const Order order : {Order::kShuffled, Order::kSequential}) {
    for (std::size_t skipped : {0, 1, 2, 3, 7, 10}) {
      BatchSampler stepped(10, 3, order, 5), skipping(10, 3, order, 5);
      for (std::size_t i = 0; i < skipped; ++i) stepped.next();
      skipping.skip(skipped);
      CHECK(skipping.epoch() == stepped.epoch());
      for (int i = 0; i < 5; ++i) CHECK(skipping.next() == stepped.next());
    }
  }
}

TEST_CASE("BatchSampler: sequential order visits every example once", "[dataset][sampler]") {
  BatchSampler sampler(7, 3, Order::kSequential);
  CHECK(sampler.batches_per_epoch() == 3);
  CHECK(sampler.next() == std::vector<std::size_t>{0, 1, 2});
  CHECK(sampler.next() == std::vector<std::size_t>{3, 4, 5});
  CHECK(sampler.next() == std::vector<std::size_t>{6});  // the short last batch is kept
  CHECK(sampler.next() == std::vector<std::size_t>{0, 1, 2});
  CHECK(sampler.epoch() == 2);
  CHECK_THROWS_WITH(BatchSampler(2, 3, Order::kShuffled),
                    Contains("2 examples cannot fill one batch of 3"));
  CHECK_THROWS_WITH(BatchSampler(5, 0, Order::kSequential), Contains("batch size must be >= 1"));
}

// ----------------------------------------------------------------- vowel restoration (ref. 002)

TEST_CASE("Vowels: preprocessing is reference 002's, line by line", "[dataset][vowels]") {
  // re.sub('[^A-Za-z]+', ' ', line).strip().lower()
  CHECK(normalize_line("Hello, World!!  It's 42.") == "hello world it s");
  CHECK(normalize_line("  --Leading and trailing--  \n") == "leading and trailing");
  CHECK(normalize_line("MiXeD CaSe") == "mixed case");
  CHECK(normalize_line("1234 ... !!") == "");
  // Bytes of non-ASCII characters are non-letters: "café naïve" -> "caf na ve".
  CHECK(normalize_line("caf\xc3\xa9 na\xc3\xafve") == "caf na ve");

  // Lines are joined WITHOUT a separator; \n, \r\n and \r all end a line, as in Python.
  CHECK(normalize_text("Hello, World!\nIt's 4 AM...\r\nGo  home\n") == "hello worldit s amgo home");
  // Expected value printed by Python 3 for the same bytes, with 002's code:
  // ''.join(re.sub('[^A-Za-z]+', ' ', l).strip().lower() for l in open(f).readlines())
  const std::string raw =
      "\xef\xbb\xbfThe Time Machine, by H. G. Wells [1898]\r\n\r\n  I\r\n\tThe Time Traveller "
      "(for so it will be convenient\rto speak of him) caf\xc3\xa9 na\xc3\xafve \xe2\x80\x94 "
      "ABC-def_ghi\n\n123\nlast";
  CHECK(normalize_text(raw) ==
        "the time machine by h g wellsithe time traveller for so it will be convenientto speak "
        "of him caf na ve abc def ghilast");

  CHECK(mask_vowels("the time machine") == "th* t*m* m*ch*n*");
  CHECK(mask_vowels("rhythm") == "rhythm");  // y is not one of a, e, i, o, u
}

TEST_CASE("Vowels: the character vocabulary", "[dataset][vowels]") {
  const Vocabulary v = vowel_vocabulary();
  CHECK(v.size() == 32);
  CHECK(v.tokenization() == Tokenization::kCharacters);
  CHECK(v.id("<pad>") == 0);
  CHECK(v.id("<bos>") == 1);
  CHECK(v.id("*") == 4);
  CHECK(v.id(" ") == 5);
  CHECK(v.id("a") == 6);
  CHECK(v.id("z") == 31);
}

TEST_CASE("Vowels: windows of a tiny corpus, exact contents", "[dataset][vowels]") {
  // "hello worldit s amgo home": 25 characters. With a held-out fraction of 0.2 the last
  // 5 characters (" home", from offset 20) are held out.
  TempFile file("tiny.txt", "Hello, World!\nIt's 4 AM...\r\nGo  home\n");
  VowelOptions options;
  options.window = 5;
  options.held_out_fraction = 0.2;
  const VowelRestoration data = VowelRestoration::from_file(file.path, options);
  REQUIRE(data.text() == "hello worldit s amgo home");
  CHECK(data.raw_bytes() == 37);
  CHECK(data.boundary() == 20);
  CHECK(data.num_windows(Split::kTrain) == 16);   // starts 0 .. 15
  CHECK(data.num_windows(Split::kHeldOut) == 1);  // start 20
  CHECK(data.window(Split::kTrain, 0) == "hello");
  CHECK(data.window(Split::kTrain, 6) == "world");
  CHECK(data.window(Split::kTrain, 15) == " amgo");  // the last one ends at the boundary
  CHECK(data.window(Split::kHeldOut, 0) == " home");
  CHECK_THROWS_AS(data.window(Split::kTrain, 16), std::out_of_range);

  trace::Capture capture;
  const Batch batch = data.batch(Split::kTrain, {1, 15});
  REQUIRE(batch.src.shape() == TokenIds::shape_type{2, 5});
  // window 1 = "ello ": the encoder sees the vowels masked ...
  CHECK(row(batch.src, 0) == chars("*ll* "));
  // ... the decoder reads <bos> + window[:-1] and must predict the window itself.
  CHECK(row(batch.tgt_in, 0) == std::vector<std::int32_t>{kBosId, 10, 17, 17, 20});  // <bos>ello
  CHECK(row(batch.tgt_out, 0) == chars("ello "));
  CHECK(row(batch.src, 1) == chars(" *mg*"));
  CHECK(row(batch.tgt_out, 1) == chars(" amgo"));
  CHECK(data.vocabulary().decode(row(batch.tgt_in, 1)) == "<bos> amg");
  CHECK_THAT(capture.lines().at(0),
             Contains("[VowelRestoration] encoder input") && Contains("src -> [2, 5]"));

  const Batch held_out = data.batch(Split::kHeldOut, {0});
  CHECK(row(held_out.src, 0) == chars(" h*m*"));
  CHECK(row(held_out.tgt_out, 0) == chars(" home"));
}

TEST_CASE("Vowels: no window crosses the split boundary, counts are exact", "[dataset][vowels]") {
  const std::string raw =
      "The Time Traveller (for so it will be convenient to speak of him)\n"
      "was expounding a recondite matter to us.\n";
  const std::string text = normalize_text(raw);
  REQUIRE(text.size() == 102);  // "...speak of himwas expounding..."
  struct Case {
    std::size_t window, stride;
    double fraction;
    std::size_t boundary, train, held_out;
  };
  // boundary = n - round(n * fraction); windows per part = (part - window) / stride + 1.
  const Case cases[] = {
      {40, 1, 0.1, 92, 53, 0},   // 10 held-out characters: too few for a window -> error
      {10, 1, 0.1, 92, 83, 1},   // held-out part [92, 102): exactly one window
      {10, 3, 0.25, 76, 23, 6},  // 25.5 rounds to 26 held out: starts 76, 79, .. 91
      {7, 4, 0.5, 51, 12, 12},   // (51 - 7) / 4 + 1 = 12 on both sides
      {102, 1, 0.0, 102, 1, 0},  // no held-out part at all: one window, the whole text
  };
  for (const Case& c : cases) {
    VowelOptions options;
    options.window = c.window;
    options.stride = c.stride;
    options.held_out_fraction = c.fraction;
    INFO("window " << c.window << " stride " << c.stride << " fraction " << c.fraction);
    if (c.held_out == 0 && c.fraction > 0.0) {
      CHECK_THROWS_WITH(VowelRestoration(raw, options, "two-lines"),
                        Contains("10 held out") && Contains("each part needs at least one window"));
      continue;
    }
    const VowelRestoration data(raw, options, "two-lines");
    CHECK(data.boundary() == c.boundary);
    CHECK(data.num_windows(Split::kTrain) == c.train);
    CHECK(data.num_windows(Split::kHeldOut) == c.held_out);
    // Every window lies inside its part, and one more window would not.
    for (std::size_t i = 0; i < data.num_windows(Split::kTrain); ++i) {
      CHECK(data.window_start(Split::kTrain, i) + c.window <= data.boundary());
      CHECK(data.window(Split::kTrain, i) == text.substr(i * c.stride, c.window));
    }
    CHECK(data.num_windows(Split::kTrain) * c.stride + c.window > data.boundary());
    for (std::size_t i = 0; i < data.num_windows(Split::kHeldOut); ++i) {
      CHECK(data.window_start(Split::kHeldOut, i) >= data.boundary());
      CHECK(data.window_start(Split::kHeldOut, i) + c.window <= text.size());
    }
    const std::size_t next_held_out_start = data.boundary() + c.held_out * c.stride;
    if (c.held_out > 0) CHECK(next_held_out_start + c.window > text.size());
  }
}

TEST_CASE("Vowels: missing, empty and too short corpora are clear errors", "[dataset][vowels]") {
  const std::string missing =
      (std::filesystem::temp_directory_path() / "tfm_no_such_dir" / "corpus.txt").string();
  CHECK_THROWS_WITH(
      VowelRestoration::from_file(missing),
      Contains("cannot open corpus '" + missing + "'") && Contains("No such file or directory"));
  CHECK_THROWS_WITH(VowelRestoration::from_file(std::filesystem::temp_directory_path().string()),
                    Contains("it is a directory"));

  TempFile empty("empty.txt", "");
  CHECK_THROWS_WITH(VowelRestoration::from_file(empty.path),
                    Contains("corpus '" + empty.path + "' is empty (0 bytes)"));

  TempFile short_text("short.txt", "It was a dark and stormy night.\n");  // 30 characters
  CHECK_THROWS_WITH(VowelRestoration::from_file(short_text.path),
                    Contains("corpus '" + short_text.path + "' is too short") &&
                        Contains("32 bytes give 30 characters after preprocessing") &&
                        Contains("27 for training and 3 held out") &&
                        Contains("at least one window of 40 characters"));

  TempFile no_letters("digits.txt", "12345\n67890\n");
  CHECK_THROWS_WITH(VowelRestoration::from_file(no_letters.path),
                    Contains("12 bytes give 0 characters after preprocessing"));

  VowelOptions options;
  options.held_out_fraction = 1.0;
  CHECK_THROWS_WITH(VowelRestoration("some text", options),
                    Contains("held_out_fraction must be in [0, 1)"));
  options = VowelOptions{};
  options.window = 0;
  CHECK_THROWS_WITH(VowelRestoration("some text", options), Contains("window must be >= 1"));
}

TEST_CASE("Vowels: a corpus without vowels, or not in UTF-8, is refused",
          "[dataset][vowels][bad-input]") {
  const std::string consonants(400, 'b');
  CHECK_THROWS_WITH(VowelRestoration(consonants + "\n", VowelOptions{}, "bbbb.txt"),
                    "corpus 'bbbb.txt' has no vowel (a, e, i, o, u) after preprocessing: there is "
                    "nothing to restore");
  std::string latin1 =
      "It was a dark and stormy night; the rain fell in torrents, except at occasional "
      "intervals, when it was checked by a violent gust of wind. Madame n\xE9"
      "e Blanc.\n";
  TempFile file("latin1.txt", latin1);
  CHECK_THROWS_WITH(VowelRestoration::from_file(file.path),
                    "corpus '" + file.path + "' is not UTF-8 text: byte 0xE9 at offset " +
                        std::to_string(latin1.find('\xE9')) +
                        " (Latin-1? convert it: iconv -f latin1 -t utf-8)");
}

TEST_CASE("Vowels: shuffled training batches and in-order evaluation batches",
          "[dataset][vowels][sampler]") {
  const std::string raw = "the quick brown fox jumps over the lazy dog\n";  // 43 characters
  VowelOptions options;
  options.window = 8;
  options.held_out_fraction = 0.3;  // 13 held out
  const VowelRestoration data(raw, options);
  REQUIRE(data.num_windows(Split::kTrain) == 23);
  REQUIRE(data.num_windows(Split::kHeldOut) == 6);

  BatchSampler eval(data.num_windows(Split::kHeldOut), 4, Order::kSequential);
  const Batch first = data.batch(Split::kHeldOut, eval.next());
  const Batch second = data.batch(Split::kHeldOut, eval.next());
  CHECK(first.size() == 4);
  CHECK(second.size() == 2);
  CHECK(data.vocabulary().decode(row(first.tgt_out, 0)) == data.text().substr(30, 8));
  CHECK(data.vocabulary().decode(row(second.tgt_out, 1)) == data.text().substr(35, 8));

  BatchSampler a(data.num_windows(Split::kTrain), 4, Order::kShuffled, 3);
  BatchSampler b(data.num_windows(Split::kTrain), 4, Order::kShuffled, 3);
  for (int step = 0; step < 12; ++step) {  // two epochs
    const std::vector<std::size_t> indices = a.next();
    CHECK(indices == b.next());
    const Batch batch = data.batch(Split::kTrain, indices);
    for (std::size_t i = 0; i < indices.size(); ++i)
      CHECK(data.vocabulary().decode(row(batch.tgt_out, i)) ==
            data.window(Split::kTrain, indices[i]));
  }
}

TEST_CASE("Vowels: a whole text as one part, tested on windows spread over all of it",
          "[dataset][vowels]") {
  // Chapter 11's --test-corpus: held_out_fraction 0 keeps the whole text in the training part,
  // and spread_windows picks windows that do not overlap, from the start to the end.
  const std::string raw = "the quick brown fox jumps over the lazy dog\n";  // 43 characters
  VowelOptions options;
  options.window = 8;
  options.held_out_fraction = 0.0;
  const VowelRestoration text(raw, options, "other text");
  REQUIRE(text.num_windows(Split::kTrain) == 36);
  CHECK(text.num_windows(Split::kHeldOut) == 0);
  CHECK(spread_windows(text, Split::kTrain, 3) == std::vector<std::size_t>{0, 12, 24});
  CHECK(spread_windows(text, Split::kTrain, 100) ==
        std::vector<std::size_t>{0, 8, 16, 24, 32});  // no overlap
  CHECK(spread_windows(text, Split::kHeldOut, 3).empty());
  CHECK(held_out_windows(text, 3).empty());
}

TEST_CASE("Vowels: a line a person typed for --restore is checked as user input",
          "[dataset][vowels][bad-input]") {
  const Vocabulary vocabulary = vowel_vocabulary();
  CHECK(restore_input_ids(vocabulary, "th* t*m*", 64) ==
        vocabulary.encode("th* t*m*", OnUnknown::kThrow));
  CHECK(restore_input_ids(vocabulary, std::string(64, '*'), 64).size() == 64);  // exactly the table
  CHECK_THROWS_WITH(restore_input_ids(vocabulary, "", 64), "the text is empty");
  CHECK_THROWS_WITH(restore_input_ids(vocabulary, "H3llo", 64),
                    Contains("unknown character 'H' at index 0 of \"H3llo\""));
  CHECK_THROWS_AS(restore_input_ids(vocabulary, "th\xC3\xA9", 64),
                  VocabularyError);  // é: not in the task
  CHECK_THROWS_WITH(restore_input_ids(vocabulary, std::string(65, 's'), 64),
                    "the text has 65 characters but the model's positional table holds 64");
}
