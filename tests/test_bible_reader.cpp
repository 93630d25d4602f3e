// The translation project's Bible reader on SWORD modules this test writes (two versifications,
// missing verses, broken markup, a module that is not installed) and on the two Debian modules.
#include <rawtext.h>
#include <versekey.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "temp_dir.hpp"
#include "translate/bible.hpp"
#include "translate/verse_alignment.hpp"

using namespace translate;

namespace {

// Writes a RawText module `name` in versification `v11n` with the verses `texts` (OSIS reference
// -> OSIS markup) into the SWORD library at `library`.
void write_module(const std::filesystem::path& library, const std::string& name,
                  const std::string& v11n, const std::map<std::string, std::string>& texts) {
  const std::string data = "modules/texts/rawtext/" + name + "/";
  std::filesystem::create_directories(library / data);
  std::filesystem::create_directories(library / "mods.d");
  std::ofstream(library / "mods.d" / (name + ".conf"))
      << "[" << name << "]\nDataPath=./" << data
      << "\nModDrv=RawText\nSourceType=OSIS\nEncoding=UTF-8\n"
      << "Versification=" << v11n << "\n";
  const std::string path = (library / data).string();
  REQUIRE(sword::RawText::createModule(path.c_str(), v11n.c_str()) == 0);
  sword::RawText module(path.c_str(), name.c_str(), "", nullptr, sword::ENC_UTF8,
                        sword::DIRECTION_LTR, sword::FMT_OSIS, "", v11n.c_str());
  sword::VerseKey key;
  key.setVersificationSystem(v11n.c_str());
  for (const auto& [ref, text] : texts) {
    key.setText(ref.c_str());
    module.setKey(key);
    module.setEntry(text.c_str());
  }
}

std::string reading_error(const BibleModule& es, const BibleModule& en,
                          const std::string& library) {
  try {
    read_parallel(es, en, library);
  } catch (const BibleError& e) {
    return e.what();
  }
  return "";
}

const ParallelVerse& verse(const ParallelReading& reading, const std::string& osis) {
  for (const ParallelVerse& v : reading.verses)
    if (v.ref.osis() == osis) return v;
  FAIL("no verse " << osis);
  throw;
}

}  // namespace

TEST_CASE("read_parallel maps a KJV module onto an NRSVA one, verse by verse", "[bible]") {
  tfm::testing::TempDir library("bible", "two_versifications");
  write_module(
      library.path, "esTest", "KJV",
      {{"Gen.1.1", "<w>EN el principio</w> <w>crió</w> <w>Dios</w>."},
       {"Gen.1.2", "<w>Y la tierra</w> &amp; <note>nota</note><w>el</w> mar."},
       {"3John.1.14", "<w>Paz</w> <transChange type=\"added\">sea</transChange> contigo."}});
  write_module(library.path, "enTest", "NRSVA",
               {{"Gen.1.1",
                 "<w>In</w> <w>the</w> <w>beginning</w>, <w>God</w><note>n</note><w>created</w>."},
                {"3John.1.14", "<w>Peace</w> to you."},
                {"3John.1.15", "<w>The friends</w> greet you."},  // NRSVA only
                {"Tob.1.1", "<w>Tobit</w>"}});                    // a book KJV does not have
  const BibleModule es{"esTest", "sword-text-estest", true},
      en{"enTest", "sword-text-entest", false};
  const ParallelReading reading = read_parallel(es, en, library.path.string());
  CHECK(reading.verses.size() == 31102);  // every verse of the KJV's 66 books, in canon order
  CHECK(reading.verses.front().ref.osis() == "Gen.1.1");
  CHECK(reading.verses.back().ref.osis() == "Rev.22.21");
  CHECK(verse(reading, "Gen.1.1").spanish == "En el principio crió Dios.");  // chapter capitals
  CHECK(verse(reading, "Gen.1.1").english == "In the beginning, God created.");
  CHECK(verse(reading, "Gen.1.2").spanish == "Y la tierra & el mar.");
  CHECK(verse(reading, "Gen.1.2").english.empty());  // missing in English
  CHECK(verse(reading, "3John.1.14").english == "Peace to you.");
  CHECK(reading.only_in_english == 1);  // 3 John 1:15; Tobit is no book of the KJV canon

  const AlignedVerses aligned = align_verses(reading.verses);
  CHECK(aligned.report.missing_spanish == 31102 - 3);
  CHECK(aligned.report.missing_english == 1);
  CHECK(aligned.pairs.size() == 2);
}

TEST_CASE("read_parallel names the module, its package and the verse it cannot read",
          "[bible][bad-input]") {
  tfm::testing::TempDir library("bible", "errors");
  write_module(library.path, "esTest", "KJV",
               {{"Gen.1.2", "<w>Y la tierra"}, {"Exod.2.3", "a <note>b"}});
  const BibleModule es{"esTest", "sword-text-estest", false},
      en{"missing", "sword-text-missing", false};
  CHECK(reading_error(es, en, library.path.string()) ==
        "the SWORD module missing is not installed in the SWORD library in " +
            library.path.string() + " (apt-get install sword-text-missing)");
  CHECK(reading_error(es, es, library.path.string()) ==
        "esTest Exod.2.3: <note> is never closed at byte 2");
}

TEST_CASE("the two Debian Bibles: verses as a reader reads them, and what the alignment drops",
          "[bible]") {
  const ParallelReading reading = read_parallel(spanish_bible(), english_bible());
  REQUIRE(reading.verses.size() == 31102);
  CHECK(verse(reading, "Gen.1.1").spanish == "En el principio crió Dios los cielos y la tierra.");
  CHECK(verse(reading, "Gen.1.1").english ==
        "In the beginning, God created the heavens and the earth.");
  CHECK(verse(reading, "John.3.16").english ==
        "For God so loved the world, that he gave his only born Son, that whoever believes in him "
        "should not perish, but have eternal life.");
  CHECK(verse(reading, "Ps.3.1")
            .english.rfind("A Psalm by David, when he fled from Absalom his son. Yahweh,", 0) == 0);
  CHECK(verse(reading, "Rev.22.21").english ==
        "The grace of the Lord Jesus Christ be with all the saints. Amen.");
  CHECK(verse(reading, "Rom.16.25").english.empty());  // the WEB has it at the end of Romans 14
  // No word of either text is glued to the next: every word of the English text is a word of
  // the markup (checked for the glue seen in SWORD's own filter).
  for (const ParallelVerse& v : reading.verses) {
    INFO(v.ref.osis());
    CHECK(v.english.find("Godcreated") == std::string::npos);
    CHECK(v.english.find("bornSon") == std::string::npos);
    CHECK(v.english.find("  ") == std::string::npos);
  }
  const AlignedVerses aligned = align_verses(reading.verses);
  for (const char* chapter : {"Jonah.2", "Job.39", "1Sam.24", "Num.30"}) {
    INFO(chapter);
    CHECK(std::count(aligned.report.shifted_chapters.begin(), aligned.report.shifted_chapters.end(),
                     std::string(chapter)) == 1);
  }
  CHECK(aligned.pairs.size() > 30000);
}
