// The translation project's scores: sacreBLEU's 13a tokens, corpus BLEU computed by hand and
// against NLTK's corpus_bleu on the same tokens (fixtures made by make_bleu_fixtures.py), the
// smoothing of a precision without matches, chrF by hand, and bad input.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "translate/translation_metrics.hpp"

using namespace translate;

namespace {
using Tokens = std::vector<std::string>;
Tokens words(const std::string& s) {
  std::istringstream in(s);
  Tokens t;
  for (std::string w; in >> w;) t.push_back(w);
  return t;
}
}  // namespace

TEST_CASE("tokenize_13a splits punctuation as mteval-v13a does", "[bleu]") {
  CHECK(tokenize_13a("Hello, world.") == Tokens{"Hello", ",", "world", "."});
  CHECK(tokenize_13a("3,000.50 and 1-2 verses") ==
        Tokens{"3,000.50", "and", "1", "-", "2", "verses"});
  CHECK(tokenize_13a("don't U.S.A.") == Tokens{"don't", "U", ".", "S", ".", "A", "."});
  CHECK(tokenize_13a("(God’s) \"Son\"; $5 &amp; more") ==
        Tokens{"(", "God’s", ")", "\"", "Son", "\"", ";", "$", "5", "&", "more"});
  CHECK(tokenize_13a("¿Quién? é.x") == Tokens{"¿Quién", "?", "é", ".", "x"});  // ¿ is not ASCII
  CHECK(tokenize_13a("a-\nb\nc") == Tokens{"ab", "c"});
  CHECK(tokenize_13a("  x\xC2\xA0y ") == Tokens{"x", "y"});  // Python's split() takes NBSP as space
  CHECK(tokenize_13a("").empty());
}

TEST_CASE("corpus BLEU by hand: clipping, smoothing and the brevity penalty", "[bleu]") {
  // 7 x "the" against a reference with 2: p1 = 2/7; no bigram, trigram or 4-gram matches, so
  // sacreBLEU's exp smoothing makes them 1/(2*6), 1/(4*5), 1/(8*4); c = 7 >= r = 6: BP = 1.
  const BleuScore clipped = bleu_score(
      bleu_statistics(words("the the the the the the the"), words("the cat is on the mat")));
  CHECK(clipped.precisions[0] == Approx(100.0 * 2 / 7));
  CHECK(clipped.precisions[1] == Approx(100.0 / 12));
  CHECK(clipped.bleu ==
        Approx(std::pow(100.0 * 2 / 7 * 100.0 / 12 * 100.0 / 20 * 100.0 / 32, 0.25)));
  CHECK(bleu_score(
            bleu_statistics(words("the the the the the the the"), words("the cat is on the mat")),
            BleuSmoothing::kNone)
            .bleu == 0.0);
  // All n-grams right but 3 tokens of 5: BP = exp(1 - 5/3).
  const BleuScore brief = bleu_score(bleu_statistics(words("a b c d"), words("a b c d e f")));
  CHECK(brief.precisions == std::array<double, 4>{100, 100, 100, 100});
  CHECK(brief.brevity_penalty == Approx(std::exp(1.0 - 6.0 / 4.0)));
  CHECK(brief.bleu == Approx(100.0 * std::exp(1.0 - 6.0 / 4.0)));
  // Nothing matches: 0, not a smoothed score; an empty output: BP 0.
  CHECK(bleu_score(bleu_statistics(words("x y z"), words("a b c"))).bleu == 0.0);
  CHECK(bleu_score(bleu_statistics({}, words("a b c"))).brevity_penalty == 0.0);
  // Statistics add up over sentences: corpus BLEU is not the mean of sentence BLEUs.
  const BleuScore corpus = corpus_bleu({"a b c d", "x y"}, {"a b c d", "x z"});
  CHECK(corpus.precisions[0] == Approx(100.0 * 5 / 6));
  CHECK(corpus.precisions[1] == Approx(100.0 * 3 / 4));
  CHECK(corpus.precisions[3] == Approx(100.0 * 1 / 1));
  CHECK(corpus.bleu == Approx(100.0 * std::pow(5.0 / 6 * 3.0 / 4, 0.25)));
  CHECK(corpus.to_string() ==
        "88.91 83.3/75.0/100.0/100.0 (BP = 1.000 ratio = 1.000 hyp_len = 6 ref_len = 6)");
}

// NLTK divides by max(1, n-grams of the output) per sentence: an output shorter than n tokens
// adds 1 to the n-gram total (sacreBLEU adds 0). The comparison counts that the same way.
TEST_CASE("corpus BLEU equals NLTK's corpus_bleu on the same tokens", "[bleu]") {
  std::ifstream in(tfm::testing::fixture_path("bleu/nltk_cases.txt"));
  REQUIRE(in);
  std::string line, name;
  BleuStatistics total;
  int cases = 0;
  while (std::getline(in, line)) {
    if (line.rfind("case ", 0) == 0) {
      name = line.substr(5);
      total = BleuStatistics{};
    } else if (line.rfind("bleu ", 0) == 0) {
      INFO(name);
      CHECK(bleu_score(total, BleuSmoothing::kNone).bleu ==
            Approx(std::stod(line.substr(5))).margin(1e-9));
      ++cases;
    } else if (const auto tab = line.find('\t'); tab != std::string::npos) {
      const Tokens output = words(line.substr(0, tab));
      BleuStatistics s = bleu_statistics(output, words(line.substr(tab + 1)));
      for (std::size_t n = 1; n <= 4; ++n) s.totals[n - 1] += output.size() < n;
      total += s;
    }
  }
  CHECK(cases == 7);
}

TEST_CASE("corpus chrF by hand", "[bleu]") {
  CHECK(corpus_chrf({"ab"}, {"a b"}) == Approx(100.0));  // spaces do not count
  // "abc" against "abd": 1-grams 2 of 3, 2-grams 1 of 2, 3-grams 0 of 1, each way.
  const double p = (2.0 / 3 + 1.0 / 2 + 0.0) / 3;
  CHECK(corpus_chrf({"abc"}, {"abd"}) == Approx(100.0 * p));
  // Recall weighs 4 times as much as precision (beta = 2): a short output loses more.
  const double precision = 1.0, recall = (2.0 / 4 + 1.0 / 3) / 2;
  CHECK(corpus_chrf({"ab"}, {"abcd"}) ==
        Approx(100.0 * 5 * precision * recall / (4 * precision + recall)));
  CHECK(corpus_chrf({"x"}, {"y"}) == 0.0);
}

TEST_CASE("scores refuse lists of different lengths", "[bleu][bad-input]") {
  CHECK_THROWS_WITH(corpus_bleu({"a"}, {"a", "b"}), "corpus_bleu: 1 outputs but 2 references");
  CHECK_THROWS_WITH(corpus_bleu({}, {}), "corpus_bleu: no sentences to score");
  CHECK_THROWS_WITH(corpus_chrf({"a", "b"}, {"a"}), "corpus_chrf: 2 outputs but 1 references");
}

namespace {
// Sentences for the bootstrap: references, and outputs that get all, half or none of them.
struct Sentences {
  std::vector<std::string> references, right, half, wrong;
};
Sentences sentences(std::size_t n) {
  Sentences s;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string k = std::to_string(i);
    s.references.push_back("the man " + k + " went to the city of David and rested there");
    s.right.push_back(s.references.back());
    s.half.push_back("the man " + k + " walked into a town and slept");
    s.wrong.push_back("a woman " + k + " ran from some village");
  }
  return s;
}
}  // namespace

TEST_CASE("paired bootstrap: identical systems differ by exactly 0", "[bleu][bootstrap]") {
  const Sentences s = sentences(50);
  for (const Measure m : {Measure::kBleu, Measure::kChrf}) {
    const PairedBootstrap b = paired_bootstrap(s.half, s.half, s.references, m);
    CHECK(b.a == b.b);
    CHECK(b.low == 0.0);
    CHECK(b.high == 0.0);
    CHECK(b.not_ahead == 1.0);  // never ahead
    CHECK_FALSE(b.a_ahead());
    CHECK_FALSE(b.a_behind());
    CHECK(b.resamples == 1000);
  }
}

TEST_CASE("paired bootstrap: two systems equally good take turns, the interval holds 0",
          "[bleu][bootstrap]") {
  const Sentences s = sentences(200);
  std::vector<std::string> a, b;  // a right on the even sentences, b on the odd ones
  for (std::size_t i = 0; i < s.references.size(); ++i) {
    a.push_back(i % 2 == 0 ? s.right[i] : s.wrong[i]);
    b.push_back(i % 2 == 0 ? s.wrong[i] : s.right[i]);
  }
  for (const Measure m : {Measure::kBleu, Measure::kChrf}) {
    const PairedBootstrap p = paired_bootstrap(a, b, s.references, m);
    CHECK(p.a == Approx(p.b));
    CHECK(p.low < 0.0);
    CHECK(p.high > 0.0);
    CHECK(p.not_ahead > 0.2);
    CHECK(p.not_ahead < 0.8);
  }
}

TEST_CASE("paired bootstrap: better on every sentence, the interval is above 0",
          "[bleu][bootstrap]") {
  const Sentences s = sentences(30);
  for (const Measure m : {Measure::kBleu, Measure::kChrf}) {
    const PairedBootstrap p = paired_bootstrap(s.right, s.half, s.references, m);
    CHECK(p.a == Approx(100.0));
    CHECK(p.b == Approx(corpus_score(s.half, s.references, m)));
    CHECK(p.low > 0.0);
    CHECK(p.a_ahead());
    CHECK(p.not_ahead == 0.0);
    const PairedBootstrap reversed = paired_bootstrap(s.half, s.right, s.references, m);
    CHECK(reversed.a_behind());
    CHECK(reversed.high == Approx(-p.low));
  }
}

TEST_CASE("paired bootstrap: the same seed draws the same resamples", "[bleu][bootstrap]") {
  const Sentences s = sentences(40);
  std::vector<std::string> mixed = s.half;
  for (std::size_t i = 0; i < mixed.size(); i += 3) mixed[i] = s.wrong[i];
  const PairedBootstrap one = paired_bootstrap(mixed, s.half, s.references, Measure::kBleu);
  const PairedBootstrap two = paired_bootstrap(mixed, s.half, s.references, Measure::kBleu);
  CHECK(one.low == two.low);
  CHECK(one.high == two.high);
  CHECK(one.not_ahead == two.not_ahead);
  const PairedBootstrap other =
      paired_bootstrap(mixed, s.half, s.references, Measure::kBleu, 1000, 7);
  CHECK(other.a == one.a);  // the full-set scores do not depend on the draws
  CHECK((other.low != one.low || other.high != one.high));
  CHECK_THROWS_WITH(paired_bootstrap({"a"}, {"a", "b"}, {"a", "b"}, Measure::kBleu),
                    "paired_bootstrap: 1 outputs but 2 references");
  CHECK_THROWS_WITH(paired_bootstrap({"a"}, {"a"}, {"a"}, Measure::kChrf, 0),
                    "paired_bootstrap: no resamples");
}

TEST_CASE("chrF statistics add up to corpus chrF", "[bleu]") {
  const Sentences s = sentences(5);
  ChrfStatistics total;
  for (std::size_t i = 0; i < 5; ++i) total += chrf_statistics(s.half[i], s.references[i]);
  CHECK(chrf_score(total) == corpus_chrf(s.half, s.references));
}

TEST_CASE("names: capitalised words that do not begin a sentence", "[bleu][names]") {
  CHECK(names_in("Then Naomi said to Ruth, “Go, my daughter.” Boaz went up. I saw God’s hand.") ==
        std::vector<std::string>{"Naomi", "Ruth", "God"});
  CHECK(names_in("Y dijo Dios: Sea la luz: y fué la luz.") == std::vector<std::string>{"Dios"});
  CHECK(names_in("and he went to Bethlehem (Judah)") ==
        std::vector<std::string>{"Bethlehem", "Judah"});
  const NamesKept kept = names_kept({"Naomi spoke to Rabbah.", "Ruth went; Naomi too."},
                                    {"Then Naomi spoke to Ruth.", "and Ruth went."});
  CHECK(kept.names == 3);
  CHECK(kept.kept == 2);  // Naomi at the start of an output still counts; Ruth in the first lost
  CHECK(kept.percent() == Approx(200.0 / 3));
  CHECK(names_kept({"x"}, {"no names here"}).percent() == 0.0);
}

TEST_CASE("repeated n-grams: a loop repeats, a list of different words does not", "[bleu][names]") {
  const Repeats loop = repeated_ngrams({"the beginning of the beginning of the beginning"}, 3);
  // 3-grams: the beginning of / beginning of the / of the beginning / the beginning of (again) /
  // beginning of the (again) / of the beginning (again)
  CHECK(loop.ngrams == 6);
  CHECK(loop.repeated == 3);
  CHECK(loop.percent() == Approx(50.0));
  CHECK(repeated_ngrams({"a b c d e f", "a b c d"}, 4).repeated == 0);  // per text, not across
  CHECK(repeated_ngrams({"a b"}, 4).percent() == 0.0);
}
