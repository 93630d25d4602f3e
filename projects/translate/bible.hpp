/// \file bible.hpp
/// \brief The translation project: the verses of two Bibles side by side, read from SWORD
/// modules through the SWORD project's own library (Debian's `libsword-dev`).
///
/// SWORD does what a reader of these modules must get exactly right: it decompresses the
/// module, walks a versification (the list of books, chapters and verses a tradition counts) and
/// maps a verse of one versification onto another (VerseKey::positionFrom). The Spanish
/// Reina-Valera 1909 (`spaRV1909eb`) declares the KJV versification, the World English Bible
/// (`engWEB2015eb`) NRSVA; every verse of the KJV's 66 books is read in both. The markup of each
/// verse becomes text through osis_to_text() (not SWORD's plain-text filter, which glues words
/// where a footnote sat between them).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace translate {

/// Thrown when a module cannot be read: it is not installed (the message gives the `apt-get`
/// line), it is not a Bible, or a verse's markup cannot be read (the message names the module
/// and the verse).
class BibleError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A SWORD Bible module and what reading it needs to know.
struct BibleModule {
  std::string name;     ///< SWORD's name for it, e.g. `spaRV1909eb`
  std::string package;  ///< the Debian package that installs it
  /// Does the text print each chapter's first word in capitals (lowercase_chapter_opening)?
  bool chapter_capitals = false;
};

/// The Reina-Valera 1909, Spanish (Debian's `sword-text-sparv`).
BibleModule spanish_bible();
/// The World English Bible, 2015 edition of its text (Debian's `sword-text-web`).
BibleModule english_bible();

/// Where a verse is: book (its OSIS abbreviation, e.g. `Gen`), chapter and verse.
struct VerseRef {
  std::string book;  ///< e.g. `Gen`, `Ps`, `John`
  int chapter = 0;   ///< from 1
  int verse = 0;     ///< from 1
  /// `Gen.1.1`: the OSIS reference, which names a verse in every message and in the split.
  std::string osis() const;
  /// The same book, chapter and verse.
  bool operator==(const VerseRef& other) const {
    return book == other.book && chapter == other.chapter && verse == other.verse;
  }
};

/// One verse in both Bibles; a text is empty where its module has no such verse.
struct ParallelVerse {
  VerseRef ref;         ///< the verse in the Spanish module's versification
  std::string spanish;  ///< its text in the Spanish module
  std::string english;  ///< the same verse in the English module
};

/// What read_parallel found.
struct ParallelReading {
  /// Every verse of the Spanish module's versification in the 66 books, in canon order.
  std::vector<ParallelVerse> verses;
  /// Verses the English module has that no verse of the Spanish versification maps to
  /// (e.g. NRSVA's 3 John 1:15): they have no Spanish side.
  std::size_t only_in_english = 0;
};

/// Reads both modules from the SWORD library in `sword_path` (a directory holding `mods.d/`;
/// empty: SWORD's own search, which finds Debian's /usr/share/sword). Throws BibleError naming
/// the module (and its package) or the verse for anything that cannot be read.
ParallelReading read_parallel(const BibleModule& spanish, const BibleModule& english,
                              const std::string& sword_path = "");

}  // namespace translate
