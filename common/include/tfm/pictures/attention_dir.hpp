/// \file attention_dir.hpp
/// \brief Pictures (chapter 11): every attention map of one inspected input (pictures/inspection.hpp) written
/// into a folder, with a page that shows them all: what the programs' `--attention-dir` writes.
#pragma once

#include <string>

#include "tfm/data/vocabulary.hpp"
#include "tfm/pictures/inspection.hpp"

namespace tfm {

/// Writes every layer of every kind as one SVG of its heads side by side
/// (`encoder_self_layer0.svg`, `decoder_self_layer0.svg`, `cross_layer0.svg`, ...) into `dir`
/// (created if missing) and an `index.html` that shows them all, with the input and the output
/// above them; returns the index's path. Throws std::runtime_error naming what cannot be written.
std::string write_attention_dir(const std::string& dir, const Inspection& inspection,
                                const Vocabulary& source, const Vocabulary& target);

/// The line a program prints after write_attention_dir: where the maps are and how to open them.
std::string attention_dir_note(const std::string& index_path);

}  // namespace tfm
