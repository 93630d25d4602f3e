// The translation project's verse markup: OSIS to plain text without gluing words, the elements
// that are not the verse, entities, malformed markup, and Reina-Valera's chapter-opening capitals.
#include <catch2/catch.hpp>
#include <string>

#include "translate/osis_text.hpp"

using translate::lowercase_chapter_opening;
using translate::osis_to_text;
using translate::OsisError;

namespace {
std::string error_of(const std::string& osis) {
  try {
    osis_to_text(osis);
  } catch (const OsisError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("osis_to_text keeps the words and drops the tags and their attributes", "[osis]") {
  CHECK(
      osis_to_text(R"(<w lemma="strong:H7225">EN el principio</w> <w lemma="strong:H1254">crió</w>)"
                   R"( <w lemma="strong:H0430">Dios</w>.)") == "EN el principio crió Dios.");
  // Words added by the translators (italics in print) are part of the text.
  CHECK(osis_to_text(R"(<w>Paz</w> <transChange type="added">sea</transChange> <w>contigo</w>.)") ==
        "Paz sea contigo.");
  CHECK(osis_to_text(R"(<q marker="" who="Jesus"><w>For</w> <w>God</w></q>)") == "For God");
}

TEST_CASE("a footnote between two words becomes a space, not glue", "[osis]") {
  // Genesis 1:1 and John 3:16 of the World English Bible, as the module stores them.
  CHECK(
      osis_to_text(
          R"(<w lemma="strong:H0430">God</w><note placement="foot"><reference type="annotateRef">)"
          R"(1:1 </reference>The Hebrew word rendered “God” is “אֱלֹהִ֑ים” (Elohim).</note>)"
          R"(<w lemma="strong:H1254">created</w>)") == "God created");
  CHECK(
      osis_to_text(R"(<w>his</w> <w>only</w> born</q><note placement="foot">The phrase “only born”)"
                   R"(</note><q marker="" who="Jesus"><w>Son</w>,)") == "his only born Son,");
  // Before closing punctuation and after opening punctuation a note leaves no space.
  CHECK(osis_to_text("<w>God’s</w><note>n</note>, <w>and</w>") == "God’s, and");
  CHECK(osis_to_text("¿<note>n</note><w>quién</w><note>n</note>?") == "¿quién?");
  // A note already beside a space adds none.
  CHECK(osis_to_text("<w>a</w> <note>n</note> <w>b</w>") == "a b");
}

TEST_CASE("lines, line groups and milestones separate words; inline markup does not", "[osis]") {
  CHECK(
      osis_to_text(
          R"(<l level="1" sID="a"/>increased!<l eID="a"/><l level="2" sID="b"/>Many<l eID="b"/>)") ==
      "increased! Many");
  CHECK(osis_to_text(R"(<w>un</w><w>known</w>)") == "unknown");  // two <w> with nothing between
  CHECK(
      osis_to_text(
          R"(<div type="x-milestone" subType="x-preverse" sID="pv1"/>Yahweh<lb type="x-p"/>how)") ==
      "Yahweh how");
}

TEST_CASE("what is not the verse is dropped: notes, headings, speakers, a book's appendix",
          "[osis]") {
  CHECK(
      osis_to_text(
          R"(<note type="crossReference"><reference>Isaiah 66:24</reference></note>)"
          R"(<note placement="foot"><rdg type="alternate">head of the corner</rdg></note>fire)") ==
      "fire");
  CHECK(osis_to_text(R"(<title type="section">The Creation</title><w>In</w>)") == "In");
  // A psalm's canonical title is part of its first verse (the Spanish text has it there too).
  CHECK(osis_to_text(
            R"(<title canonical="true" type="psalm">A Psalm by David.</title> <w>Yahweh</w>)") ==
        "A Psalm by David. Yahweh");
  CHECK(osis_to_text(R"(<speaker>Beloved</speaker> <l sID="x"/>Let him kiss me)") ==
        "Let him kiss me");
  // The glossary the World English Bible appends to Revelation 22:21.
  CHECK(osis_to_text(R"(<w>Amen</w>. <div type="glossary"/><title>Glossary</title> Abaddon ...)") ==
        "Amen.");
  // A note inside a note: the outer one ends at its own end tag.
  CHECK(osis_to_text("a<note>x<note>y</note>z</note>b") == "a b");
  CHECK(osis_to_text("a<note/>b") == "a b");  // an empty note is a boundary too
}

TEST_CASE("entities are decoded and whitespace is collapsed", "[osis]") {
  CHECK(osis_to_text("Tom &amp; Jerry &lt;3&gt; &quot;x&quot; &apos;y&apos;") ==
        "Tom & Jerry <3> \"x\" 'y'");
  CHECK(osis_to_text("&#65;&#x42;&#xe9;") == "ABé");
  CHECK(osis_to_text("  a \n\t b\xC2\xA0"
                     "c  ") == "a b c");  // NBSP is whitespace
  CHECK(osis_to_text("") == "");
  CHECK(osis_to_text("<!-- comment -->a") == "a");
}

TEST_CASE("unreadable markup is an OsisError that says what and where", "[osis][bad-input]") {
  CHECK(error_of("abc <w lemma=") == "an unterminated tag at byte 4");
  CHECK(error_of("a <note>never closed") == "<note> is never closed at byte 2");
  CHECK(error_of("a <note> <w>x</w>") == "<note> is never closed at byte 2");
  CHECK(error_of("<>") == "a tag without a name at byte 0");
  CHECK(error_of("a & b") == "an '&' that starts no entity (no ';' within 10 bytes) at byte 2");
  CHECK(error_of("&nbsp;") == "unknown entity &nbsp; at byte 0");
  CHECK(error_of("&#0;") == "the character reference &#0; is not a character at byte 0");
  CHECK(error_of("&#xD800;") == "the character reference &#xD800; is not a character at byte 0");
  CHECK(error_of("&#99999999;") ==
        "the character reference &#99999999; is not a character at byte 0");
}

TEST_CASE("bytes that are not UTF-8 pass through unchanged, and are no letters", "[osis]") {
  const std::string bad =
      "a\xFF"
      "b\xC3";
  CHECK(osis_to_text(bad) == bad);
  // A lone byte of a capital's sequence (fuzz/regressions/osis/invalid_utf8_capital.xml) and an
  // overlong encoding of 'F' (overlong_utf8.xml) are not capitals to lowercase.
  CHECK(lowercase_chapter_opening("EN\xC9 x") == "En\xC9 x");
  CHECK(lowercase_chapter_opening("DD\xC1\x86 x") == "Dd\xC1\x86 x");
}

TEST_CASE("lowercase_chapter_opening: the first word in capitals, as printed, becomes a word",
          "[osis]") {
  CHECK(lowercase_chapter_opening("EN el principio crió Dios") == "En el principio crió Dios");
  CHECK(lowercase_chapter_opening("¿CAZARÁS tú la presa?") == "¿Cazarás tú la presa?");
  // After a psalm's title, and only the first such word.
  CHECK(lowercase_chapter_opening("Salmo de David. ¡OH JEHOVÁ, cuánto") ==
        "Salmo de David. ¡Oh JEHOVÁ, cuánto");
  CHECK(lowercase_chapter_opening("Y YO me paré") ==
        "Y Yo me paré");  // one letter is no word in capitals
  CHECK(lowercase_chapter_opening("ÑANDÚ") == "Ñandú");
  CHECK(lowercase_chapter_opening("nothing to do") == "nothing to do");
  CHECK(lowercase_chapter_opening("") == "");
}
