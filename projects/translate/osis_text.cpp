#include "translate/osis_text.hpp"

#include <cstdint>
#include <string_view>

namespace translate {
namespace {

// What next_code_point returns for a byte b that starts no valid UTF-8 sequence: kNotUtf8 + b, which
// is no character (and so no letter, space or punctuation).
constexpr std::uint32_t kNotUtf8 = 0x110000;

// One UTF-8 code point of `s` at `i` (advanced past it).
std::uint32_t next_code_point(std::string_view s, std::size_t& i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b = byte(i);
  const std::size_t length = b < 0x80           ? 1
                             : (b >> 5) == 0x6  ? 2
                             : (b >> 4) == 0xE  ? 3
                             : (b >> 3) == 0x1E ? 4
                                                : 0;
  if (length == 1) {
    ++i;
    return b;
  }
  if (length == 0 || i + length > s.size()) {
    ++i;
    return kNotUtf8 + b;
  }
  std::uint32_t cp = b & (0x7F >> length);
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) {
      ++i;
      return kNotUtf8 + b;
    }
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  constexpr std::uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};  // shorter would do: overlong
  if (cp < kSmallest[length] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    ++i;
    return kNotUtf8 + b;
  }
  i += length;
  return cp;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool is_space(std::uint32_t cp) {
  return cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || cp == 0xA0 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x202F || cp == 0x3000;
}
// No space goes before these when a tag stood between them and the previous text ...
bool closes(std::uint32_t cp) {
  switch (cp) {
    case ',':
    case '.':
    case ';':
    case ':':
    case '!':
    case '?':
    case ')':
    case ']':
    case '}':
    case 0x201D:
    case 0x2019:
    case 0xBB:
    case 0x2026:
    case 0x2014:  // ” ’ » … —
      return true;
    default:
      return false;
  }
}
// ... nor after these.
bool opens(std::uint32_t cp) {
  switch (cp) {
    case '(':
    case '[':
    case '{':
    case 0x201C:
    case 0x2018:
    case 0xAB:
    case 0xBF:
    case 0xA1:
    case 0x2014:  // “ ‘ « ¿ ¡ —
      return true;
    default:
      return false;
  }
}

// The text being built: whitespace collapsed, boundaries turned into spaces where they separate.
class TextBuilder {
 public:
  void boundary() { boundary_ = true; }
  // One character: code point `cp`, written as `bytes` (its UTF-8, or a byte that is not UTF-8).
  void add(std::uint32_t cp, std::string_view bytes) {
    if (is_space(cp)) {
      space_ = true;
      return;
    }
    if (!out_.empty() && (space_ || (boundary_ && !closes(cp) && !opens(last_)))) out_ += ' ';
    out_ += bytes;
    last_ = cp;
    space_ = boundary_ = false;
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
  std::uint32_t last_ = 0;
  bool space_ = false, boundary_ = false;
};

struct Tag {
  std::string_view name;
  std::string_view attributes;
  bool closing = false, self_closing = false;
};

Tag parse_tag(std::string_view body) {  // what lies between '<' and '>'
  Tag tag;
  if (!body.empty() && body.front() == '/') {
    tag.closing = true;
    body.remove_prefix(1);
  }
  if (!body.empty() && body.back() == '/') {
    tag.self_closing = true;
    body.remove_suffix(1);
  }
  std::size_t end = 0;
  while (end < body.size() && !is_space(static_cast<unsigned char>(body[end]))) ++end;
  tag.name = body.substr(0, end);
  tag.attributes = body.substr(end);
  return tag;
}

// The value of attribute `key` (quoted with " or '), or "" if the tag has none.
std::string_view attribute(const Tag& tag, std::string_view key) {
  const std::string_view a = tag.attributes;
  for (std::size_t at = a.find(key); at != std::string_view::npos; at = a.find(key, at + 1)) {
    const std::size_t eq = at + key.size();
    const bool starts_name = at == 0 || is_space(static_cast<unsigned char>(a[at - 1]));
    if (!starts_name || eq + 1 >= a.size() || a[eq] != '=' ||
        (a[eq + 1] != '"' && a[eq + 1] != '\''))
      continue;
    const std::size_t close = a.find(a[eq + 1], eq + 2);
    if (close == std::string_view::npos) return {};
    return a.substr(eq + 2, close - eq - 2);
  }
  return {};
}

// Markup of a word or inside a line: its text runs on without a break.
bool is_inline(std::string_view name) {
  for (const char* n : {"w", "q", "transChange", "seg", "hi", "name", "foreign", "divineName",
                        "catchWord", "rdg", "reference", "abbr", "inscription", "added"})
    if (name == n) return true;
  return false;
}

// An element whose content is not the verse's text.
bool is_dropped(const Tag& tag) {
  if (tag.name == "note" || tag.name == "speaker") return true;
  return tag.name == "title" && attribute(tag, "canonical") != "true";
}

// Where the verse ends and a book's appendix begins.
bool starts_appendix(const Tag& tag) {
  const std::string_view type = attribute(tag, "type");
  return tag.name == "div" && !tag.closing && (type == "glossary" || type == "introduction");
}

std::string at_byte(std::size_t i) {
  return " at byte " + std::to_string(i);
}

// The code point of the entity that starts at osis[i] == '&'; `i` moves past its ';'.
std::uint32_t read_entity(std::string_view osis, std::size_t& i) {
  const std::size_t end = osis.find(';', i);
  if (end == std::string_view::npos || end - i > 10)
    throw OsisError("an '&' that starts no entity (no ';' within 10 bytes)" + at_byte(i));
  const std::string_view name = osis.substr(i + 1, end - i - 1);
  const std::size_t start = i;
  i = end + 1;
  if (name == "amp") return '&';
  if (name == "lt") return '<';
  if (name == "gt") return '>';
  if (name == "quot") return '"';
  if (name == "apos") return '\'';
  if (name.size() >= 2 && name[0] == '#') {
    const bool hex = name[1] == 'x' || name[1] == 'X';
    const std::string_view digits = name.substr(hex ? 2 : 1);
    std::uint32_t cp = 0;
    bool ok = !digits.empty();
    for (const char c : digits) {
      const int d = c >= '0' && c <= '9'          ? c - '0'
                    : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : hex && c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                  : -1;
      if (d < 0 || cp > 0x10FFFF) {
        ok = false;
        break;
      }
      cp = cp * (hex ? 16 : 10) + static_cast<std::uint32_t>(d);
    }
    if (ok && cp != 0 && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF)) return cp;
    throw OsisError("the character reference &" + std::string(name) + "; is not a character" +
                    at_byte(start));
  }
  throw OsisError("unknown entity &" + std::string(name) + ";" + at_byte(start));
}

// Skips the content of the element opened by `tag` (its start tag ends just before `i`), up to
// and including its end tag; elements of the same name inside it are counted.
void skip_element(std::string_view osis, const Tag& tag, std::size_t tag_start, std::size_t& i) {
  std::size_t depth = 1;
  while (depth > 0) {
    const std::size_t open = osis.find('<', i);
    if (open == std::string_view::npos)
      throw OsisError("<" + std::string(tag.name) + "> is never closed" + at_byte(tag_start));
    const std::size_t close = osis.find('>', open);
    if (close == std::string_view::npos) throw OsisError("an unterminated tag" + at_byte(open));
    const Tag inner = parse_tag(osis.substr(open + 1, close - open - 1));
    if (inner.name == tag.name && !inner.self_closing) depth += inner.closing ? -1 : 1;
    i = close + 1;
  }
}

bool is_upper(std::uint32_t cp) {
  return (cp >= 'A' && cp <= 'Z') || (cp >= 0xC0 && cp <= 0xDE && cp != 0xD7);
}
bool is_lower(std::uint32_t cp) {
  return (cp >= 'a' && cp <= 'z') || (cp >= 0xDF && cp <= 0xFF && cp != 0xF7);
}

}  // namespace

// [osis to text]
std::string osis_to_text(const std::string& osis_text) {
  const std::string_view osis = osis_text;
  TextBuilder text;
  std::size_t i = 0;
  while (i < osis.size()) {
    if (osis[i] == '&') {
      const std::uint32_t cp = read_entity(osis, i);
      std::string bytes;
      append_utf8(bytes, cp);
      text.add(cp, bytes);
      continue;
    }
    if (osis[i] != '<') {
      const std::size_t start = i;
      const std::uint32_t cp = next_code_point(osis, i);
      text.add(cp, osis.substr(start, i - start));
      continue;
    }
    const std::size_t start = i, close = osis.find('>', i);
    if (close == std::string_view::npos) throw OsisError("an unterminated tag" + at_byte(start));
    const Tag tag = parse_tag(osis.substr(i + 1, close - i - 1));
    if (tag.name.empty()) throw OsisError("a tag without a name" + at_byte(start));
    i = close + 1;
    if (tag.name.front() == '!' || tag.name.front() == '?') continue;  // a comment or declaration
    if (starts_appendix(tag)) break;
    if (is_inline(tag.name)) continue;
    text.boundary();  // everything else separates what comes before from what comes after
    if (is_dropped(tag) && !tag.closing && !tag.self_closing) {
      skip_element(osis, tag, start, i);
      text.boundary();
    }
  }
  return text.take();
}
// [osis to text]

std::string lowercase_chapter_opening(const std::string& text) {
  const std::string_view s = text;
  const auto is_letter = [](std::uint32_t cp) { return is_upper(cp) || is_lower(cp); };
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t end = i;
    if (std::size_t k = i; !is_letter(next_code_point(s, k))) {
      i = k;
      continue;
    }
    std::size_t letters = 0;
    bool all_upper = true;
    while (end < s.size()) {  // the word [i, end)
      std::size_t k = end;
      const std::uint32_t cp = next_code_point(s, k);
      if (!is_letter(cp)) break;
      all_upper = all_upper && is_upper(cp);
      ++letters;
      end = k;
    }
    if (letters >= 2 && all_upper) {
      std::string out(s.substr(0, i));
      std::size_t k = i;
      append_utf8(out, next_code_point(s, k));
      while (k < end) append_utf8(out, next_code_point(s, k) + 0x20);  // A-Z, À-Þ: lowercase is +32
      out += s.substr(end);
      return out;
    }
    i = end;
  }
  return text;
}

}  // namespace translate
