#include "translate/bpe.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <queue>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "tfm/data/vocabulary.hpp"

namespace translate {
namespace {

bool is_separator(const std::string& c) {
  return c == " " || c == "\t" || c == "\n" || c == "\r";
}

// Letters and digits of any script make words; ASCII punctuation, Latin-1's (¡ ¿ « » ·) and the
// General Punctuation block (’ “ ” — …) stand alone.
bool is_word_character(const std::string& c) {
  const auto b0 = static_cast<unsigned char>(c[0]);
  if (b0 < 0x80) return std::isalnum(b0) != 0;
  if (c == "\xC2\xA1" || c == "\xC2\xBF" || c == "\xC2\xAB" || c == "\xC2\xBB" || c == "\xC2\xB7")
    return false;
  if (c.size() == 3 && b0 == 0xE2 &&
      (static_cast<unsigned char>(c[1]) == 0x80 || static_cast<unsigned char>(c[1]) == 0x81))
    return false;          // U+2000 .. U+207F
  return c != kSpaceMark;  // the mark itself, typed by a user, stands alone
}

using SymbolId = std::int32_t;
using PairKey = std::uint64_t;
PairKey key(SymbolId a, SymbolId b) {
  return (static_cast<PairKey>(a) << 32) | static_cast<std::uint32_t>(b);
}
SymbolId left(PairKey k) {
  return static_cast<SymbolId>(k >> 32);
}
SymbolId right(PairKey k) {
  return static_cast<SymbolId>(k & 0xFFFFFFFFu);
}

std::string merge_key(const std::string& a, const std::string& b) {
  return a + ' ' + b;
}

}  // namespace

std::vector<std::string> bpe_words(const std::string& text) {
  std::vector<std::string> words;
  bool after_space = true, in_word = false;
  for (const std::string& c : tfm::utf8_characters(text)) {
    if (is_separator(c)) {
      after_space = true;
      in_word = false;
      continue;
    }
    const bool word_character = is_word_character(c);
    if (!(in_word && word_character)) words.push_back(after_space ? kSpaceMark : "");
    words.back() += c;
    in_word = word_character;
    after_space = false;
  }
  return words;
}

// [bpe learn]
Bpe Bpe::learn(const std::vector<std::string>& texts, std::size_t symbols) {
  // The words of the texts, each once, with how often it occurs.
  std::unordered_map<std::string, long> word_counts;
  for (const std::string& text : texts)
    for (const std::string& word : bpe_words(text)) ++word_counts[word];
  if (word_counts.empty()) throw std::invalid_argument("BPE: no text to learn from");

  Bpe bpe;
  std::vector<std::string> names;  // symbol id -> its text
  std::unordered_map<std::string, SymbolId> ids;
  const auto symbol_id = [&](const std::string& name) {
    const auto [it, added] = ids.emplace(name, static_cast<SymbolId>(names.size()));
    if (added) names.push_back(name);
    return it->second;
  };
  std::set<std::string> characters;
  for (const auto& [word, count] : word_counts)
    for (const std::string& c : tfm::utf8_characters(word)) characters.insert(c);
  bpe.characters_.assign(characters.begin(), characters.end());
  for (const std::string& c : bpe.characters_) symbol_id(c);

  // Every word as symbols, sorted so that the counts below are summed in one order.
  struct Word {
    std::vector<SymbolId> symbols;
    long count;
  };
  std::vector<std::pair<std::string, long>> sorted(word_counts.begin(), word_counts.end());
  std::sort(sorted.begin(), sorted.end());
  std::vector<Word> words;
  for (const auto& [text, count] : sorted) {
    Word w{{}, count};
    for (const std::string& c : tfm::utf8_characters(text)) w.symbols.push_back(ids.at(c));
    words.push_back(std::move(w));
  }

  // How often each pair of neighbours occurs, and in which words.
  std::unordered_map<PairKey, long> pair_counts;
  std::unordered_map<PairKey, std::vector<std::size_t>> words_with;
  const auto count_pairs = [&](std::size_t w, long sign, std::vector<PairKey>& changed) {
    const Word& word = words[w];
    for (std::size_t i = 0; i + 1 < word.symbols.size(); ++i) {
      const PairKey k = key(word.symbols[i], word.symbols[i + 1]);
      pair_counts[k] += sign * word.count;
      changed.push_back(k);
      if (sign > 0) words_with[k].push_back(w);
    }
  };
  // The most frequent pair first; ties to the pair first in byte order. Entries go stale when a
  // count changes (a fresh entry is pushed then) and are skipped when popped.
  struct Candidate {
    long count;
    PairKey pair;
  };
  const auto later = [&](const Candidate& a, const Candidate& b) {
    if (a.count != b.count) return a.count < b.count;
    return std::make_pair(names[left(a.pair)], names[right(a.pair)]) >
           std::make_pair(names[left(b.pair)], names[right(b.pair)]);
  };
  std::priority_queue<Candidate, std::vector<Candidate>, decltype(later)> queue(later);
  std::vector<PairKey> changed;
  for (std::size_t w = 0; w < words.size(); ++w) count_pairs(w, +1, changed);
  for (const auto& [pair, count] : pair_counts) queue.push({count, pair});

  std::vector<std::size_t> last_visit(words.size(), 0);
  while (names.size() < symbols && !queue.empty()) {
    const Candidate best = queue.top();
    queue.pop();
    if (pair_counts[best.pair] != best.count) continue;  // stale
    if (best.count < 2) break;
    const SymbolId a = left(best.pair), b = right(best.pair);
    bpe.merges_.emplace_back(names[a], names[b]);
    const SymbolId merged = symbol_id(names[a] + names[b]);
    changed.clear();
    for (const std::size_t w : std::vector<std::size_t>(words_with[best.pair])) {
      if (last_visit[w] == bpe.merges_.size()) continue;  // listed twice
      last_visit[w] = bpe.merges_.size();
      count_pairs(w, -1, changed);
      std::vector<SymbolId>& s = words[w].symbols;
      std::vector<SymbolId> out;
      for (std::size_t i = 0; i < s.size(); ++i) {
        if (i + 1 < s.size() && s[i] == a && s[i + 1] == b) {
          out.push_back(merged);
          ++i;
        } else {
          out.push_back(s[i]);
        }
      }
      s = std::move(out);
      count_pairs(w, +1, changed);
    }
    std::sort(changed.begin(), changed.end());
    changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
    for (const PairKey k : changed) queue.push({pair_counts[k], k});
  }
  bpe.rebuild_index();
  return bpe;
}
// [bpe learn]

void Bpe::rebuild_index() {
  known_.clear();
  known_.insert(characters_.begin(), characters_.end());
  ranks_.clear();
  for (std::size_t r = 0; r < merges_.size(); ++r)
    ranks_.emplace(merge_key(merges_[r].first, merges_[r].second), r);
  cache_.clear();
}

std::vector<std::string> Bpe::encode_word(const std::string& word) const {
  if (const auto hit = cache_.find(word); hit != cache_.end()) return hit->second;
  std::vector<std::string> pieces;
  for (const std::string& c : tfm::utf8_characters(word))
    pieces.push_back(known_.count(c) ? c : "<unk>");
  // Merge the earliest-learnt pair present, everywhere in the word, until none is left.
  while (pieces.size() > 1) {
    std::size_t best_rank = ranks_.size();
    for (std::size_t i = 0; i + 1 < pieces.size(); ++i)
      if (const auto r = ranks_.find(merge_key(pieces[i], pieces[i + 1])); r != ranks_.end())
        best_rank = std::min(best_rank, r->second);
    if (best_rank == ranks_.size()) break;
    const auto& [a, b] = merges_[best_rank];
    std::vector<std::string> out;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      if (i + 1 < pieces.size() && pieces[i] == a && pieces[i + 1] == b) {
        out.push_back(a + b);
        ++i;
      } else {
        out.push_back(pieces[i]);
      }
    }
    pieces = std::move(out);
  }
  cache_.emplace(word, pieces);
  return pieces;
}

std::vector<std::string> Bpe::encode(const std::string& text) const {
  std::vector<std::string> pieces;
  for (const std::string& word : bpe_words(text))
    for (std::string& piece : encode_word(word)) pieces.push_back(std::move(piece));
  return pieces;
}

std::string Bpe::decode(const std::vector<std::string>& pieces) {
  std::string joined;
  for (const std::string& piece : pieces) joined += piece;
  std::string text;
  const std::string mark = kSpaceMark;
  for (std::size_t i = 0; i < joined.size();) {
    if (joined.compare(i, mark.size(), mark) == 0) {
      if (!text.empty()) text += ' ';
      i += mark.size();
    } else {
      text += joined[i++];
    }
  }
  return text;
}

std::vector<std::string> Bpe::unknown_characters(const std::string& text) const {
  std::vector<std::string> unknown;
  for (const std::string& c : tfm::utf8_characters(text))
    if (!is_separator(c) && !known_.count(c) &&
        std::find(unknown.begin(), unknown.end(), c) == unknown.end())
      unknown.push_back(c);
  return unknown;
}

std::vector<std::string> Bpe::symbols() const {
  std::vector<std::string> all = characters_;
  std::unordered_set<std::string> seen(all.begin(), all.end());
  for (const auto& [a, b] : merges_)
    if (seen.insert(a + b).second) all.push_back(a + b);
  return all;
}

std::string Bpe::to_text() const {
  std::ostringstream out;
  out << "# BPE tokenizer (projects/translate/bpe.hpp)\ncharacters " << characters_.size() << "\n";
  for (const std::string& c : characters_) out << c << "\n";
  out << "merges " << merges_.size() << "\n";
  for (const auto& [a, b] : merges_) out << a << " " << b << "\n";
  return out.str();
}

Bpe Bpe::parse(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  std::string line;
  std::size_t number = 0;
  const auto fail = [&](const std::string& why) {
    return TokenizerError(name + " line " + std::to_string(number) + ": " + why);
  };
  const auto next = [&]() {
    if (!std::getline(in, line)) {
      ++number;
      throw fail("the file ends early");
    }
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
  };
  const auto count_line = [&](const std::string& word) {
    next();
    const std::string prefix = word + " ";
    if (line.compare(0, prefix.size(), prefix) != 0 || line.size() == prefix.size() ||
        line.size() > prefix.size() + 9 ||
        line.find_first_not_of("0123456789", prefix.size()) != std::string::npos)
      throw fail("expected '" + word + " N', got '" + line + "'");
    return static_cast<std::size_t>(std::stoul(line.substr(prefix.size())));
  };
  next();
  if (line.rfind("# BPE", 0) != 0)
    throw fail("expected the header '# BPE ...', got '" + line + "'");
  Bpe bpe;
  std::unordered_set<std::string> symbols;
  const std::size_t n_characters = count_line("characters");
  for (std::size_t i = 0; i < n_characters; ++i) {
    next();
    // (A byte that is not UTF-8 is a "character" of its own to utf8_characters, but two of them
    // could make one real character when encoded side by side.)
    if (tfm::utf8_characters(line).size() != 1 || is_separator(line) ||
        (line.size() == 1 && static_cast<unsigned char>(line[0]) >= 0x80))
      throw fail("expected one character (UTF-8) that is not whitespace, got '" + line + "'");
    if (!symbols.insert(line).second) throw fail("the character '" + line + "' is listed twice");
    bpe.characters_.push_back(line);
  }
  const std::size_t n_merges = count_line("merges");
  std::unordered_set<std::string> merge_keys;
  for (std::size_t i = 0; i < n_merges; ++i) {
    next();
    const std::size_t space = line.find(' ');
    if (space == std::string::npos || space == 0 || space + 1 == line.size() ||
        line.find_first_of(" \t", space + 1) != std::string::npos)
      throw fail("expected a merge 'LEFT RIGHT', got '" + line + "'");
    const std::string a = line.substr(0, space), b = line.substr(space + 1);
    if (!symbols.count(a) || !symbols.count(b))
      throw fail("the merge '" + line + "' joins '" + (symbols.count(a) ? b : a) +
                 "', which no earlier line makes");
    if (!merge_keys.insert(line).second) throw fail("the merge '" + line + "' is listed twice");
    symbols.insert(a + b);
    bpe.merges_.emplace_back(a, b);
  }
  if (std::getline(in, line)) {
    ++number;
    throw fail("unexpected text after the last merge");
  }
  bpe.rebuild_index();
  return bpe;
}

}  // namespace translate
