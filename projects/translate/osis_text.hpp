/// \file osis_text.hpp
/// \brief The translation project: one verse of a SWORD module, from its OSIS markup to the plain
/// text a reader sees, without gluing words where the markup had no space.
///
/// A SWORD module stores each verse as OSIS XML: words in `<w lemma="strong:H0430">`, quotations
/// in `<q>`, poetry lines in `<l>`, footnotes in `<note>`. The text is what lies between the
/// tags, except inside elements that are not the verse itself: notes (with their cross
/// references and alternate readings), section headings (a `<title>` that is not
/// `canonical="true"`; a psalm's canonical title is part of its first verse, as the Spanish text
/// has it), the speakers of the Song of Songs, and the glossary or introduction a module appends
/// to a book's last verse.
///
/// **The gluing trap.** The World English Bible writes `God</w><note>…</note><w>created`:
/// a footnote sits between two words with no space on either side. Dropping the note glues them
/// ("Godcreated"; SWORD's own plain-text filter and `diatheke -f plain` do). Here every tag that
/// is not inline markup of a word (`w`, `q`, `transChange`, ...) is a boundary, and a boundary
/// between two characters of text becomes one space, unless the next one is closing punctuation
/// ("God’s,") or the previous one opening punctuation ("¿").
#pragma once

#include <stdexcept>
#include <string>

namespace translate {

/// Thrown for markup that cannot be read: an unterminated tag or entity, or an element that is
/// never closed; the message says what and where (the byte offset).
class OsisError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// The plain text of one verse's OSIS markup: the text outside the dropped elements, entities
/// decoded (`&amp;` ...), every run of whitespace one space, no space at either end. Throws
/// OsisError for markup that cannot be read.
std::string osis_to_text(const std::string& osis);

/// Reina-Valera prints the first word of every chapter in capitals ("EN el principio",
/// "¡OH Jehová"): the first word of `text` in capitals (two letters or more) written with only its
/// first letter capital ("En el principio"). Other words in capitals (an inscription, JEHOVÁ in
/// a title) are kept; the caller applies this to a chapter's first verse only.
std::string lowercase_chapter_opening(const std::string& text);

}  // namespace translate
