#include "pronounce/letter_to_sound.hpp"

#include <memory>
#include <stdexcept>

#include "pronounce/lexicon.hpp"
#include "tfm/support/text_file.hpp"

namespace pronounce {

namespace {

// A Scheme expression: an atom, or a list; with the line it starts on.
struct Expr {
  std::string atom;
  std::vector<Expr> list;
  bool is_list = false;
  std::size_t line = 0;
};

class Reader {
 public:
  Reader(const std::string& text, const std::string& name) : text_(text), name_(name) {}

  [[noreturn]] void fail(std::size_t line, const std::string& what) const {
    throw std::invalid_argument(name_ + ", line " + std::to_string(line) + ": " + what);
  }
  // The next expression, or false at the end of the text.
  bool next(Expr& out) {
    skip();
    if (pos_ >= text_.size()) return false;
    out = read(0);
    return true;
  }

 private:
  void skip() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == ';') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\n' ||
                 c == '\'') {  // a quote changes nothing here
        if (c == '\n') ++line_;
        ++pos_;
      } else {
        return;
      }
    }
  }
  Expr read(std::size_t depth) {
    skip();
    if (depth > 500) fail(line_, "the expressions are nested more than 500 deep");
    Expr e;
    e.line = line_;
    if (pos_ >= text_.size()) fail(line_, "the text ends inside an expression (a missing ')')");
    if (text_[pos_] == ')') fail(line_, "a ')' that closes nothing");
    if (text_[pos_] == '(') {
      e.is_list = true;
      ++pos_;
      for (;;) {
        skip();
        if (pos_ >= text_.size()) fail(e.line, "the '(' opened here is never closed");
        if (text_[pos_] == ')') {
          ++pos_;
          return e;
        }
        e.list.push_back(read(depth + 1));
      }
    }
    const std::size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != '(' && text_[pos_] != ')' && text_[pos_] != ';' &&
           text_[pos_] != ' ' && text_[pos_] != '\t' && text_[pos_] != '\r' && text_[pos_] != '\n')
      ++pos_;
    e.atom = text_.substr(start, pos_ - start);
    return e;
  }

  const std::string& text_;
  const std::string& name_;
  std::size_t pos_ = 0, line_ = 1;
};

// "p.p.name" -> -2, "name" -> 0, "n.name" -> +1; false if not of that form.
bool feature_offset(const std::string& feature, int& offset) {
  std::string rest = feature;
  offset = 0;
  while (rest.size() > 2 && (rest.compare(0, 2, "p.") == 0 || rest.compare(0, 2, "n.") == 0)) {
    offset += rest[0] == 'p' ? -1 : 1;
    rest = rest.substr(2);
  }
  return rest == "name";
}

}  // namespace

LetterToSound LetterToSound::parse(const std::string& text, const std::string& name) {
  Reader reader(text, name);
  LetterToSound lts;
  Expr top;
  const Expr* rules = nullptr;
  Expr other;
  while (reader.next(rules ? other : top)) {  // the first (set! NAME '(...)) holds the rules
    if (!rules && top.is_list && top.list.size() == 3 && !top.list[0].is_list &&
        top.list[0].atom == "set!" && top.list[2].is_list)
      rules = &top.list[2];
  }  // the rest is read too: a stray ')' is an error
  if (!rules)
    throw std::invalid_argument(name +
                                ": no rules found (expected (set! NAME '((LETTER TREE) ...)))");
  // A tree, as nodes: (QUESTION YES NO) or ((DISTRIBUTION... CLASS)).
  const auto add = [&](const Expr& tree, auto& self) -> std::int32_t {
    const auto index = static_cast<std::int32_t>(lts.nodes_.size());
    lts.nodes_.emplace_back();
    if (!tree.is_list) reader.fail(tree.line, "expected a tree, got the atom '" + tree.atom + "'");
    if (tree.list.size() == 1 && tree.list[0].is_list && !tree.list[0].list.empty() &&
        !tree.list[0].list.back().is_list) {
      const std::string& cls = tree.list[0].list.back().atom;
      Node leaf;
      if (cls != "_epsilon_") {
        std::size_t start = 0;
        for (;;) {
          const std::size_t dash = cls.find('-', start);
          try {
            leaf.phones.push_back(stressless_phoneme(cls.substr(start, dash - start)));
          } catch (const std::invalid_argument& e) {
            reader.fail(tree.line, std::string("the leaf '") + cls + "': " + e.what());
          }
          if (dash == std::string::npos) break;
          start = dash + 1;
        }
      }
      lts.nodes_[static_cast<std::size_t>(index)] = std::move(leaf);
      return index;
    }
    if (tree.list.size() != 3)
      reader.fail(tree.line, "expected (QUESTION YES NO) or a leaf ((... CLASS))");
    const Expr& q = tree.list[0];
    int offset = 0;
    if (!q.is_list || q.list.size() != 3 || q.list[0].is_list || q.list[1].is_list ||
        q.list[2].is_list || q.list[1].atom != "is" || !feature_offset(q.list[0].atom, offset) ||
        offset < -3 || offset > 3)
      reader.fail(q.line, "expected a question (F.name is V) with F p., n. at most 3 deep");
    const std::int32_t yes = self(tree.list[1], self);
    const std::int32_t no = self(tree.list[2], self);
    Node& node = lts.nodes_[static_cast<std::size_t>(index)];
    node.offset = offset;
    node.value = q.list[2].atom;
    node.yes = yes;
    node.no = no;
    return index;
  };
  for (const Expr& rule : rules->list) {
    if (!rule.is_list || rule.list.size() != 2 || rule.list[0].is_list)
      reader.fail(rule.line, "expected a rule (LETTER TREE)");
    const std::string& letter = rule.list[0].atom;
    if (lts.roots_.count(letter))
      reader.fail(rule.line, "a second tree for the letter '" + letter + "'");
    lts.roots_[letter] = add(rule.list[1], add);
  }
  if (lts.roots_.empty()) throw std::invalid_argument(name + ": the rules are empty");
  return lts;
}

LetterToSound LetterToSound::from_file(const std::string& path) {
  return parse(tfm::read_text_file(path, "letter-to-sound rules"), path);
}

std::vector<std::string> LetterToSound::pronounce(const std::string& word) const {
  std::vector<std::string> letters = {"#"};
  for (char c : word) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    letters.emplace_back(1, c);
  }
  letters.emplace_back("#");
  const auto at = [&](std::ptrdiff_t i) -> std::string {
    return i < 0 || i >= static_cast<std::ptrdiff_t>(letters.size())
               ? "0"
               : letters[static_cast<std::size_t>(i)];
  };
  std::vector<std::string> phones;
  for (std::size_t i = 1; i + 1 < letters.size(); ++i) {
    const auto root = roots_.find(letters[i]);
    if (root == roots_.end())
      throw std::invalid_argument("letter-to-sound: no rule for the letter '" + letters[i] +
                                  "' of \"" + word + "\"");
    std::int32_t n = root->second;
    while (nodes_[static_cast<std::size_t>(n)].yes >= 0) {
      const Node& node = nodes_[static_cast<std::size_t>(n)];
      n = at(static_cast<std::ptrdiff_t>(i) + node.offset) == node.value ? node.yes : node.no;
    }
    for (const std::string& p : nodes_[static_cast<std::size_t>(n)].phones) phones.push_back(p);
  }
  return phones;
}

}  // namespace pronounce
