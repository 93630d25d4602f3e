#include "translate/bible.hpp"

#include <swlog.h>
#include <swmgr.h>
#include <swmodule.h>
#include <versekey.h>

#include <memory>
#include <set>

#include "translate/osis_text.hpp"

namespace translate {

BibleModule spanish_bible() {
  return {"spaRV1909eb", "sword-text-sparv", true};
}
BibleModule english_bible() {
  return {"engWEB2015eb", "sword-text-web", false};
}

std::string VerseRef::osis() const {
  return book + "." + std::to_string(chapter) + "." + std::to_string(verse);
}

namespace {

// A module of `manager` that is a Bible, or a BibleError saying how to install it.
sword::SWModule& bible_module(sword::SWMgr& manager, const BibleModule& module,
                              const std::string& sword_path) {
  sword::SWModule* found = manager.getModule(module.name.c_str());
  const std::string where =
      sword_path.empty() ? "SWORD's library" : "the SWORD library in " + sword_path;
  if (!found)
    throw BibleError("the SWORD module " + module.name + " is not installed in " + where +
                     " (apt-get install " + module.package + ")");
  if (std::string(found->getType()) != sword::SWMgr::MODTYPE_BIBLES)
    throw BibleError("the SWORD module " + module.name + " is not a Bible (its type is " +
                     found->getType() + ")");
  return *found;
}

// The text of the verse `module` is positioned at.
std::string verse_text(sword::SWModule& module, const BibleModule& which, const VerseRef& ref) {
  std::string text;
  try {
    text = osis_to_text(module.getRawEntry());
  } catch (const OsisError& e) {
    throw BibleError(which.name + " " + ref.osis() + ": " + e.what());
  }
  return which.chapter_capitals && ref.verse == 1 ? lowercase_chapter_opening(text) : text;
}

VerseRef ref_of(const sword::VerseKey& key) {
  return {key.getOSISBookName(), key.getChapter(), key.getVerse()};
}

}  // namespace

ParallelReading read_parallel(const BibleModule& spanish, const BibleModule& english,
                              const std::string& sword_path) {
  sword::SWLog::getSystemLog()->setLogLevel(sword::SWLog::LOG_ERROR);
  std::unique_ptr<sword::SWMgr> manager =
      sword_path.empty()
          ? std::make_unique<sword::SWMgr>()
          : std::make_unique<sword::SWMgr>(sword_path.c_str(), true, nullptr, false, false);
  sword::SWModule& es = bible_module(*manager, spanish, sword_path);
  sword::SWModule& en = bible_module(*manager, english, sword_path);

  // Keys made by the modules carry their versifications; positionFrom maps between them.
  std::unique_ptr<sword::VerseKey> es_key(static_cast<sword::VerseKey*>(es.createKey()));
  std::unique_ptr<sword::VerseKey> en_key(static_cast<sword::VerseKey*>(en.createKey()));
  es_key->setIntros(false);
  en_key->setIntros(false);

  ParallelReading reading;
  std::set<std::string> mapped, books;
  for (*es_key = sword::TOP; !es_key->popError(); (*es_key)++) {
    ParallelVerse verse;
    verse.ref = ref_of(*es_key);
    es.setKey(*es_key);
    verse.spanish = verse_text(es, spanish, verse.ref);
    en_key->positionFrom(*es_key);
    if (!en_key->popError()) {
      en.setKey(*en_key);
      verse.english = verse_text(en, english, ref_of(*en_key));
      mapped.insert(ref_of(*en_key).osis());
    }
    books.insert(verse.ref.book);
    reading.verses.push_back(std::move(verse));
  }
  if (reading.verses.empty())
    throw BibleError("the SWORD module " + spanish.name + " has no verses");
  for (*en_key = sword::TOP; !en_key->popError(); (*en_key)++) {
    const VerseRef ref = ref_of(*en_key);
    if (!books.count(ref.book) || mapped.count(ref.osis())) continue;
    en.setKey(*en_key);
    if (!verse_text(en, english, ref).empty()) ++reading.only_in_english;
  }
  return reading;
}

}  // namespace translate
