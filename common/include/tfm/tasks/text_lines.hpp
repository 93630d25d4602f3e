/// \file text_lines.hpp
/// \brief Task (chapter 11): a trained model answering texts read from standard input, one a line
/// (`--restore -`, `--pronounce -`, `--translate -`), with the attention maps of the last text
/// written into a folder (`--attention-dir`).
#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "tfm/core/tensor.hpp"
#include "tfm/data/vocabulary.hpp"
#include "tfm/model/transformer.hpp"

namespace tfm {

/// What a program answered for one line of text.
struct LineAnswer {
  std::string output;              ///< the whole answer
  std::vector<std::string> notes;  ///< what was changed to read the line
  TokenIds src;                    ///< `[1, S]`: the last input row the model read
  TokenIds generated;              ///< `[1, T]`: what the model wrote for it
};

/// Reads `in` line by line (blank lines are skipped) and prints `line  ->  output` on `out`,
/// after a `note: ...` line per note. A line `answer` refuses (std::invalid_argument) is an
/// `error: <what>: ...` line on `err`, naming the line's number, and the next line is read.
/// Then, if `attention_dir` is not empty and a line was answered, writes the attention maps of
/// the last answer there (tfm::write_attention_dir) and prints how to open them. Returns the
/// number of lines refused.
std::size_t answer_lines(std::istream& in, std::ostream& out, std::ostream& err,
                         const std::string& what, Transformer& model, const Vocabulary& source,
                         const Vocabulary& target,
                         const std::function<LineAnswer(const std::string&)>& answer,
                         const std::string& attention_dir);

}  // namespace tfm
