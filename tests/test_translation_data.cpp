// The translation project's batches: one shared subword vocabulary, batches of similar lengths
// within a token budget that deal every training pair once an epoch and are the same whatever was
// asked before, and padding that changes nothing in a verse's logits.
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>
#include <xtensor/xview.hpp>

#include "tfm/model/transformer.hpp"
#include "translate/translation_data.hpp"

using namespace translate;

namespace {
// Verses of 1 to 30 words in both languages, in the training part, plus a few test verses.
SplitVerses verses() {
  SplitVerses parts;
  const std::vector<std::string> es = {"la", "casa", "de", "Dios", "es", "grande", "y", "santa"};
  const std::vector<std::string> en = {"the", "house", "of", "God", "is", "great", "and", "holy"};
  for (int v = 1; v <= 120; ++v) {
    std::string s, e;
    for (int w = 0; w < 1 + v % 30; ++w) {
      s += (w ? " " : "") + es[static_cast<std::size_t>(w + v) % es.size()];
      e += (w ? " " : "") + en[static_cast<std::size_t>(w + v) % en.size()];
    }
    ParallelVerse verse;  // (a braced {{"Gen", 1, v}, ...} trips g++ 12's -Wmaybe-uninitialized)
    verse.ref.book = "Gen";
    verse.ref.chapter = 1;
    verse.ref.verse = v;
    verse.spanish = s + ".";
    verse.english = e + ".";
    parts[static_cast<int>(v % 10 == 0 ? Part::kTest : Part::kTrain)].push_back(verse);
  }
  return parts;
}
}  // namespace

TEST_CASE("TranslationData: one vocabulary for both languages, either direction",
          "[translation_data]") {
  const TranslationData data(verses(), Direction::kSpanishToEnglish, 200, 100);
  // Every merge these 16 words allow, fewer than 200 symbols, and the 4 reserved ids.
  CHECK(data.vocabulary().size() == data.tokenizer().symbols().size() + 4);
  CHECK(data.vocabulary().size() < 204);
  CHECK(data.vocabulary().contains(std::string(kSpaceMark) + "casa"));
  CHECK(data.vocabulary().contains(std::string(kSpaceMark) + "house"));
  const ParallelVerse& first = data.verses(Part::kTrain).front();
  CHECK(data.source_text(first) == first.spanish);
  const TranslationData reverse(verses(), Direction::kEnglishToSpanish, 200, 100);
  CHECK(reverse.source_text(first) == first.english);
  CHECK(parse_direction("en-es") == Direction::kEnglishToSpanish);
  CHECK_THROWS_WITH(parse_direction("es-fr"), "the direction must be es-en or en-es, got 'es-fr'");
  // Ids back to text: the pieces joined, up to <eos>.
  const tfm::TokenIds src = data.encode_sources({"la casa de Dios.", "santa"});
  CHECK(src.shape(0) == 2);
  std::vector<std::int32_t> ids = tfm::row(src, 0);
  ids.push_back(tfm::kEosId);
  ids.push_back(7);
  CHECK(data.decode(ids) == "la casa de Dios.");
  CHECK(data.decode(tfm::row(src, 1)) == "santa");  // <pad> ends it
  CHECK_THROWS_WITH(data.encode_sources({"la", "  "}), "text 2 has nothing to translate");
}

TEST_CASE("training batches: within the token budget, every pair once an epoch, reproducible",
          "[translation_data]") {
  const TranslationData data(verses(), Direction::kSpanishToEnglish, 60, 100);
  const std::size_t budget = 400, pairs = data.pairs(Part::kTrain).size();
  std::multiset<std::vector<std::int32_t>> dealt;
  std::size_t index = 0, rows = 0;
  while (rows < pairs) {  // the first epoch
    const tfm::Batch b = data.training_batch(index++, budget, 7);
    CHECK(b.src.shape(0) * std::max(b.src.shape(1), b.tgt_in.shape(1)) <= budget);
    for (std::size_t r = 0; r < b.size(); ++r) {
      std::vector<std::int32_t> src = tfm::row(b.src, r);
      while (!src.empty() && src.back() == tfm::kPadId) src.pop_back();
      dealt.insert(src);
      CHECK(b.tgt_in(r, 0) == tfm::kBosId);
    }
    rows += b.size();
  }
  CHECK(rows == pairs);
  std::multiset<std::vector<std::int32_t>> all;
  for (const EncodedPair& p : data.pairs(Part::kTrain)) all.insert(p.source);
  CHECK(dealt == all);
  // Batch 5 is batch 5, asked first, after others, or in the next epoch's order.
  const auto same = [](const tfm::TokenIds& a, const tfm::TokenIds& b) {
    return a.shape() == b.shape() && a == b;
  };
  const tfm::Batch again =
      TranslationData(verses(), Direction::kSpanishToEnglish, 60, 100).training_batch(5, budget, 7);
  CHECK(same(again.src, data.training_batch(5, budget, 7).src));
  CHECK(data.training_batch(index + 3, budget, 7).src.shape(0) > 0);  // epoch 2
  CHECK(same(data.training_batch(5, budget, 7).src, again.src));
  CHECK_FALSE(
      same(data.training_batch(5, budget, 8).src, again.src));  // another seed, another order
  CHECK_THROWS_WITH(data.training_batch(0, 50, 7),
                    "a batch of 50 tokens cannot hold a pair of 100 tokens (+ <bos>/<eos>)");
}

TEST_CASE("training leaves out pairs longer than the limit, tests keep every verse",
          "[translation_data]") {
  const TranslationData data(verses(), Direction::kSpanishToEnglish, 60, 20);
  for (const EncodedPair& p : data.pairs(Part::kTrain)) CHECK(p.source.size() <= 20);
  CHECK(data.pairs(Part::kTrain).size() < data.verses(Part::kTrain).size());
  CHECK(data.pairs(Part::kTest).size() == data.verses(Part::kTest).size());
  CHECK(data.summary().find("longer than 20 subwords, left out of training") != std::string::npos);
}

TEST_CASE("padding a verse into a longer batch changes none of its logits", "[translation_data]") {
  const TranslationData data(verses(), Direction::kSpanishToEnglish, 60, 100);
  tfm::Config config = tfm::preset("tiny");
  config.src_vocab_size = config.tgt_vocab_size = data.vocabulary().size();
  config.shared_embedding = true;
  tfm::Transformer model(config, 3);
  model.set_training(false);
  const auto& test = data.pairs(Part::kTest);
  std::size_t shortest = 0, longest = 0;
  for (std::size_t i = 0; i < test.size(); ++i) {
    if (test[i].source.size() < test[shortest].source.size()) shortest = i;
    if (test[i].source.size() > test[longest].source.size()) longest = i;
  }
  const tfm::Batch alone = data.batch(Part::kTest, {shortest});
  const tfm::Batch padded = data.batch(Part::kTest, {shortest, longest});
  REQUIRE(padded.src.shape(1) > alone.src.shape(1));
  const tfm::Tensor3 a = model.forward(alone.src, alone.tgt_in);
  const tfm::Tensor3 b = model.forward(padded.src, padded.tgt_in);
  const auto rows = a.shape(1);
  const tfm::Tensor2 in_batch = xt::view(b, 0, xt::range(0, rows), xt::all());
  const tfm::Tensor2 by_itself = xt::view(a, 0, xt::all(), xt::all());
  CHECK(xt::allclose(in_batch, by_itself, 1e-5, 1e-5));
}
