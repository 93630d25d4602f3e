/// \file copy_sequences.hpp
/// \brief Task (chapter 02): the copy task, the Annotated Transformer's first example — the target is
/// the source itself, so a model that learns it has learned to move information from the
/// encoder to the decoder.
///
/// The Annotated Transformer draws symbols 1 .. V-1, overwrites column 0 with 1 to serve as
/// the start symbol, and shifts inside the batch (`tgt[:, :-1]` / `tgt[:, 1:]`). Here the start
/// and end symbols are the reserved `<bos>`/`<eos>` and the source keeps all its symbols:
///
///     src     =         s1 s2 .. sL          [batch, L]
///     tgt_in  = <bos>   s1 s2 .. sL          [batch, L + 1]
///     tgt_out =         s1 s2 .. sL <eos>    [batch, L + 1]
#pragma once

#include <cstddef>

#include "tfm/core/random.hpp"
#include "tfm/data/dataset.hpp"
#include "tfm/data/vocabulary.hpp"

namespace tfm {

/// Random sequences to be copied; one Vocabulary of words "1" .. "num_symbols" for both sides.
class CopySequences {
 public:
  /// Symbols "1" .. "num_symbols" (ids 4 .. num_symbols + 3), sequences of `length` symbols.
  /// The defaults are the Annotated Transformer's: 10 symbols, length 10.
  explicit CopySequences(std::size_t num_symbols = 10, std::size_t length = 10);

  /// The special tokens plus "1" .. "num_symbols"; source and target share it.
  const Vocabulary& vocabulary() const { return vocabulary_; }
  /// How many ordinary symbols a sequence is drawn from (special tokens not counted).
  std::size_t num_symbols() const { return num_symbols_; }
  /// Source length L; the decoder sides have L + 1 (for `<bos>` / `<eos>`).
  std::size_t length() const { return length_; }

  /// A fresh batch: src `[batch_size, L]` uniform over the ordinary symbols,
  /// tgt_in `[batch_size, L + 1]`, tgt_out `[batch_size, L + 1]`. Same rng state, same batch.
  Batch batch(std::size_t batch_size, Rng& rng) const;

 private:
  std::size_t num_symbols_, length_;
  Vocabulary vocabulary_;
};

}  // namespace tfm
