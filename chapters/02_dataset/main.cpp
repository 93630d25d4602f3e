// Chapter 02: the dataset.
//
// Three datasets, one batch type. Each prints its vocabulary, traces the shapes of one batch and
// shows a few examples as text, so that the shift by one between the decoder's input and its
// target (teacher forcing) can be read off position by position.
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "tfm/core/trace.hpp"
#include "tfm/data/dataset.hpp"
#include "tfm/data/vocabulary.hpp"
#include "tfm/machinery/command_line.hpp"
#include "tfm/tasks/copy_sequences.hpp"
#include "tfm/tasks/toy_translation.hpp"
#include "tfm/tasks/vowel_restoration.hpp"

namespace {

// "0 <pad>  1 <bos>  ...", wrapped; a space is shown as ' '.
void print_vocabulary(const std::string& name, const tfm::Vocabulary& vocabulary) {
  std::cout << "  " << name << ", " << vocabulary.size() << " ids:\n";
  std::string line = "   ";
  for (std::size_t id = 0; id < vocabulary.size(); ++id) {
    const std::string& symbol = vocabulary.symbols()[id];
    const std::string entry = "  " + std::to_string(id) + " " + (symbol == " " ? "' '" : symbol);
    if (line.size() + entry.size() > 96) {
      std::cout << line << '\n';
      line = "   ";
    }
    line += entry;
  }
  std::cout << line << '\n';
}

std::string ids_text(const std::vector<std::int32_t>& ids) {
  std::string out;
  for (std::int32_t id : ids) out += (out.empty() ? "" : " ") + std::to_string(id);
  return out;
}

// Example b of a word-level batch, one column per position: the target tgt_out[t] stands under
// the input tgt_in[t] and reappears as the next input, tgt_in[t + 1], one column to the right.
void print_words(const tfm::Batch& batch, std::size_t b, const tfm::Vocabulary& src_vocabulary,
                 const tfm::Vocabulary& tgt_vocabulary) {
  const std::vector<std::string> names = {"src", "tgt_in", "tgt_out"};
  const std::vector<std::vector<std::int32_t>> rows = {
      tfm::row(batch.src, b), tfm::row(batch.tgt_in, b), tfm::row(batch.tgt_out, b)};
  const tfm::Vocabulary* vocabularies[] = {&src_vocabulary, &tgt_vocabulary, &tgt_vocabulary};
  std::size_t columns = 0;
  for (const auto& r : rows) columns = std::max(columns, r.size());
  std::vector<std::size_t> width(columns, 0);
  for (std::size_t k = 0; k < rows.size(); ++k)
    for (std::size_t t = 0; t < rows[k].size(); ++t)
      width[t] = std::max(width[t], vocabularies[k]->symbol(rows[k][t]).size());
  for (std::size_t k = 0; k < rows.size(); ++k) {
    std::string line = "    " + names[k];
    line.resize(14, ' ');
    for (std::size_t t = 0; t < rows[k].size(); ++t) {
      std::string cell = vocabularies[k]->symbol(rows[k][t]);
      cell.resize(width[t] + 1, ' ');
      line += cell;
    }
    line.resize(14 + 48, ' ');
    std::cout << line << "ids " << ids_text(rows[k]) << '\n';
  }
}

// Example b of a character-level batch as three strings of equal length; <bos> is drawn as '^'
// so that every position is one character wide.
void print_characters(const tfm::Batch& batch, std::size_t b, const tfm::Vocabulary& vocabulary) {
  const auto text = [&](const tfm::TokenIds& ids) {
    std::string out;
    for (std::int32_t id : tfm::row(ids, b)) out += id == tfm::kBosId ? "^" : vocabulary.symbol(id);
    return "\"" + out + "\"";
  };
  std::cout << "    src      " << text(batch.src) << "  vowels hidden\n"
            << "    tgt_in   " << text(batch.tgt_in) << "  ^ = <bos>, then window[:-1]\n"
            << "    tgt_out  " << text(batch.tgt_out) << "  the window\n";
}

void print_corpus(const tfm::VowelRestoration& vowels) {
  const tfm::VowelOptions& options = vowels.options();
  const std::size_t n = vowels.text().size(), boundary = vowels.boundary();
  std::cout << "  corpus " << vowels.source() << "\n"
            << "    " << vowels.raw_bytes() << " bytes -> " << n
            << " characters after preprocessing; it begins\n"
            << "    \"" << vowels.text().substr(0, 72) << "\"\n"
            << "    training part: the first " << boundary << " characters, "
            << vowels.num_windows(tfm::Split::kTrain) << " windows\n"
            << "    held-out part: the last " << n - boundary << " characters (from offset "
            << boundary << "), " << vowels.num_windows(tfm::Split::kHeldOut) << " windows\n"
            << "    (windows of " << options.window << " characters, stride " << options.stride
            << ", held-out fraction " << options.held_out_fraction << ")\n";
}

// The first two examples of a vowel-restoration batch, with where they come from.
void print_windows(const tfm::VowelRestoration& vowels, tfm::Split split,
                   const std::vector<std::size_t>& indices, const tfm::Batch& batch) {
  for (std::size_t b = 0; b < std::min<std::size_t>(2, batch.size()); ++b) {
    const std::size_t start = vowels.window_start(split, indices[b]);
    std::cout << "  " << tfm::split_name(split) << " window " << indices[b] << " (characters "
              << start << " .. " << start + vowels.options().window - 1 << ")\n";
    print_characters(batch, b, vowels.vocabulary());
  }
}

}  // namespace

int main(int argc, char** argv) {
  return tfm::run_program([&] {
    tfm::CommandLine cli("ch02_dataset", "Chapter 02: vocabularies and the three datasets.");
    cli.option("--corpus", "FILE", "text for vowel restoration (any UTF-8)",
               tfm::kDefaultCorpusPath)
        .option("--window", "N", "characters per vowel-restoration example", "40")
        .option("--stride", "N", "characters between two windows", "1")
        .option("--held-out", "F", "fraction of the text, at its end, kept for evaluation", "0.1")
        .option("--batch", "N", "examples per batch", "4")
        .option("--seed", "N", "seed of the shuffling and of the copy task", "1");
    if (!cli.parse(argc, argv)) return 0;
    const std::size_t batch_size = cli.count("--batch", 1, 65536);
    const std::size_t seed = cli.count("--seed");
    tfm::VowelOptions options;
    options.window = cli.count("--window", 1, 100000);
    options.stride = cli.count("--stride", 1, 100000);
    options.held_out_fraction = cli.number("--held-out");
    if (!(options.held_out_fraction >= 0.0 && options.held_out_fraction < 1.0))
      throw tfm::UsageError("option '--held-out' needs a fraction from 0 to below 1, got " +
                            cli.value("--held-out"));
    // Read the corpus first: a bad --corpus is reported before anything is printed.
    const tfm::VowelRestoration vowels =
        tfm::VowelRestoration::from_file(cli.value("--corpus"), options);

    tfm::trace::Enable trace;
    std::cout << "Reserved ids of every vocabulary: <pad> " << tfm::kPadId << ", <bos> "
              << tfm::kBosId << ", <eos> " << tfm::kEosId << ", <unk> " << tfm::kUnkId << "\n\n";

    {
      tfm::trace::Scope scope("1. Toy German -> English pairs (reference 001, nlp-tutorial)");
      const tfm::ToyTranslation toy;
      print_vocabulary("source vocabulary", toy.source_vocabulary());
      print_vocabulary("target vocabulary", toy.target_vocabulary());
      // [toy usage]
      const tfm::Batch batch = toy.all();
      // [toy usage]
      for (std::size_t b = 0; b < batch.size(); ++b) {
        std::cout << "  pair " << b << ": \"" << toy.pair(b).source << "\" -> \""
                  << toy.pair(b).target << "\"\n";
        print_words(batch, b, toy.source_vocabulary(), toy.target_vocabulary());
      }
    }
    std::cout << '\n';
    {
      tfm::trace::Scope scope("2. Copy task (the Annotated Transformer's first example)");
      const tfm::CopySequences copy;
      std::cout << "  vocabulary, " << copy.vocabulary().size()
                << " ids: the reserved 0 .. 3, then the "
                << "symbols '1' .. '" << copy.num_symbols() << "' as ids 4 .. "
                << copy.vocabulary().size() - 1 << "\n";
      // [copy usage]
      tfm::Rng rng(seed);
      const tfm::Batch batch = copy.batch(batch_size, rng);
      // [copy usage]
      for (std::size_t b = 0; b < std::min<std::size_t>(2, batch.size()); ++b) {
        std::cout << "  example " << b << '\n';
        print_words(batch, b, copy.vocabulary(), copy.vocabulary());
      }
    }
    std::cout << '\n';
    {
      tfm::trace::Scope scope("3. Vowel restoration (reference 002)");
      print_vocabulary("vocabulary", vowels.vocabulary());
      print_corpus(vowels);
      {
        tfm::trace::Scope batch_scope("first training batch (shuffled)");
        // [vowel usage]
        tfm::BatchSampler train_order(vowels.num_windows(tfm::Split::kTrain), batch_size,
                                      tfm::Order::kShuffled, seed);
        // ... then at every training step:
        const std::vector<std::size_t> indices = train_order.next();
        const tfm::Batch batch = vowels.batch(tfm::Split::kTrain, indices);
        // [vowel usage]
        print_windows(vowels, tfm::Split::kTrain, indices, batch);
      }
      if (vowels.num_windows(tfm::Split::kHeldOut) > 0) {  // none with --held-out 0
        tfm::trace::Scope batch_scope("first held-out batch (in order)");
        tfm::BatchSampler eval_order(vowels.num_windows(tfm::Split::kHeldOut), batch_size,
                                     tfm::Order::kSequential);
        const std::vector<std::size_t> indices = eval_order.next();
        print_windows(vowels, tfm::Split::kHeldOut, indices,
                      vowels.batch(tfm::Split::kHeldOut, indices));
      }
    }
    return 0;
  });
}
