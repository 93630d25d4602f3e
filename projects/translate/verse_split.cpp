#include "translate/verse_split.hpp"

#include <algorithm>
#include <cctype>
#include <unordered_map>
#include <unordered_set>

#include "tfm/engine/fnv1a.hpp"
#include "translate/translation_metrics.hpp"

namespace translate {

const char* part_name(Part part) {
  switch (part) {
    case Part::kTrain:
      return "train";
    case Part::kDev:
      return "dev";
    case Part::kTest:
      return "test";
    case Part::kHeldOutBook:
      return "book";
  }
  return "?";
}

Part part_of(const VerseRef& ref, const std::string& held_out_book) {
  if (ref.book == held_out_book) return Part::kHeldOutBook;
  const std::uint64_t bucket = tfm::fnv1a(ref.osis()) % 100;
  return bucket < 94 ? Part::kTrain : bucket < 96 ? Part::kDev : Part::kTest;
}

SplitVerses split_verses(const std::vector<ParallelVerse>& pairs,
                         const std::string& held_out_book) {
  SplitVerses parts;
  for (const ParallelVerse& pair : pairs)
    parts[static_cast<int>(part_of(pair.ref, held_out_book))].push_back(pair);
  return parts;
}

std::string Echoes::summary(std::size_t before) const {
  return std::to_string(total()) + " of " + std::to_string(before) +
         " test verses left out as echoes of training verses (" + std::to_string(identical) +
         " with a training verse's English, " + std::to_string(shared) +
         " sharing half or more of their 4-grams with one)";
}

Echoes remove_echoes(SplitVerses& parts, double share) {
  const auto four_grams = [](const std::string& text) {
    std::vector<std::string> tokens = tokenize_13a(text);
    for (std::string& t : tokens)
      for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::unordered_set<std::uint64_t> grams;  // hashes of the distinct 4-grams
    for (std::size_t i = 0; i + 4 <= tokens.size(); ++i)
      grams.insert(
          tfm::fnv1a(tokens[i] + " " + tokens[i + 1] + " " + tokens[i + 2] + " " + tokens[i + 3]));
    return grams;
  };
  const std::vector<ParallelVerse>& train = parts[static_cast<int>(Part::kTrain)];
  std::unordered_set<std::string> texts;
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> verses_with;  // 4-gram -> verses
  for (std::uint32_t v = 0; v < train.size(); ++v) {
    texts.insert(train[v].english);
    for (const std::uint64_t g : four_grams(train[v].english)) verses_with[g].push_back(v);
  }
  Echoes echoes;
  std::vector<std::uint32_t> shared(train.size(), 0);
  std::vector<ParallelVerse> kept;
  for (ParallelVerse& verse : parts[static_cast<int>(Part::kTest)]) {
    if (texts.count(verse.english)) {
      ++echoes.identical;
      continue;
    }
    const auto grams = four_grams(verse.english);
    std::vector<std::uint32_t> touched;
    std::uint32_t most = 0;
    for (const std::uint64_t g : grams)
      if (const auto it = verses_with.find(g); it != verses_with.end())
        for (const std::uint32_t v : it->second) {
          if (shared[v]++ == 0) touched.push_back(v);
          most = std::max(most, shared[v]);
        }
    for (const std::uint32_t v : touched) shared[v] = 0;
    if (!grams.empty() && most >= share * static_cast<double>(grams.size())) {
      ++echoes.shared;
      continue;
    }
    kept.push_back(std::move(verse));
  }
  parts[static_cast<int>(Part::kTest)] = std::move(kept);
  return echoes;
}

}  // namespace translate
