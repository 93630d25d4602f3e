/// \file printable.hpp
/// \brief Support (not a lesson): bad input quoted in a message: control bytes shown as `\xNN`, never sent raw to the
/// terminal (where an escape would change its colour, and a byte-order mark would hide).
#pragma once

#include <cstddef>
#include <string>

namespace tfm {

/// `text` with every byte below 0x20 or from 0x7F up written as `\xNN`, cut to `max_chars` (then
/// "..."). For ASCII formats (config.txt, .npy headers); UTF-8 text would lose its letters.
std::string printable(const std::string& text, std::size_t max_chars = 40);

}  // namespace tfm
