/// \file vowel_restoration.hpp
/// \brief Task (chapter 02): reference 002's task — give the model English text whose vowels are
/// hidden (`th* t*m* m*ch*n*`) and have it write the text back (`the time machine`).
///
/// The text is prepared exactly as 002 prepares *The Time Machine*: every line becomes
/// `re.sub("[^A-Za-z]+", " ", line).strip().lower()`, and the lines are concatenated without
/// a separator. Every window of `window` characters (one every `stride` characters) is an
/// example:
///
///     src     = the window with a, e, i, o, u replaced by '*'    [batch, window]
///     tgt_in  = <bos> + window[:-1]                                [batch, window]
///     tgt_out = window                                             [batch, window]
///
/// Unlike 002 the last `held_out_fraction` of the text is kept apart for evaluation, and no
/// window crosses the boundary between the two parts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tfm/data/dataset.hpp"
#include "tfm/data/vocabulary.hpp"

namespace tfm {

/// The default corpus: *The Adventures of Sherlock Holmes* (Project Gutenberg), shipped by the
/// Debian package golang-github-jdkato-prose-dev.
inline constexpr const char* kDefaultCorpusPath =
    "/usr/share/gocode/src/github.com/jdkato/prose/testdata/sherlock.txt";

/// The largest corpus read: 64 MiB, over 100 books. The text is kept about ten times over (raw,
/// normalised, two id arrays of 4 bytes per character), so this bounds the memory to ~1 GiB.
inline constexpr std::size_t kMaxCorpusBytes = std::size_t{64} << 20;

/// The symbol that hides a vowel in the encoder's input.
inline constexpr char kVowelMask = '*';

/// 002's preprocessing of one line: every run of characters other than A-Z, a-z becomes one
/// space, then leading and trailing spaces go, then everything is lower-cased. Bytes of
/// non-ASCII characters count as non-letters. The characters of `also_kept` count as letters
/// (read_typed_text keeps the `*` a person typed).
std::string normalize_line(const std::string& line, const std::string& also_kept = "");
/// 002's preprocessing of a whole text: lines (ended by `\n`, `\r\n` or `\r`, as Python reads
/// them) normalised one by one and concatenated WITHOUT a separator.
std::string normalize_text(const std::string& raw);
/// The encoder's view: a, e, i, o, u replaced by `*`; everything else unchanged.
std::string mask_vowels(const std::string& text);

/// The source ids of one line a person typed for the task, checked as user input. For chapter
/// 11's `--restore` (e.g. `th* t*m* m*ch*n*`): throws std::invalid_argument (a VocabularyError
/// for an unknown character, naming it and its index) for an empty text, a character
/// `vocabulary` does not know, or more characters than `max_len`, the model's positional table.
/// The messages are `the text is empty`, `unknown character 'H' at index 0 of "H3llo"; ...` and
/// `the text has 65 characters but the model's positional table holds 64`; a program prefixes
/// them with the option's name.
std::vector<std::int32_t> restore_input_ids(const Vocabulary& vocabulary, const std::string& text,
                                            std::size_t max_len);

/// A line a person typed, read as training read its text: what the encoder gets, and what was
/// changed to get it.
struct TypedText {
  std::string masked;              ///< normalised, vowels hidden as `*`: what the encoder reads
  std::vector<std::string> notes;  ///< one sentence per kind of change, in plain words
};
/// Reads any line of text for the task: normalize_line (keeping a typed `*`), then, unless the
/// line already hides letters as `*`, mask_vowels. The notes say which capitals were lowered,
/// which characters (punctuation, digits, accented letters, as whole UTF-8 characters) were
/// removed, and which vowels were hidden. Empty text gives an empty `masked`.
TypedText read_typed_text(const std::string& typed);
/// `text` cut into windows of at most `width` characters, at spaces where it can (the space
/// stays with the window before it), a word longer than `width` cut where it must; the windows
/// put together give `text` back. Throws std::invalid_argument for a width of 0.
std::vector<std::string> text_windows(const std::string& text, std::size_t width);

/// The character vocabulary of the task: `<pad>` 0, `<bos>` 1, `<eos>` 2, `<unk>` 3,
/// `*` 4, space 5, `a` 6 .. `z` 31 (32 ids).
Vocabulary vowel_vocabulary();

/// How the text is cut into examples.
struct VowelOptions {
  std::size_t window = 40;         ///< characters per example (002's num_steps)
  std::size_t stride = 1;          ///< characters between the starts of two windows
  double held_out_fraction = 0.1;  ///< share of the text, at its end, kept for evaluation
};

/// The two parts of the text.
enum class Split { kTrain, kHeldOut };
/// "train" or "held-out".
const char* split_name(Split split);

/// Windows of a normalised text, encoded once, served as batches.
class VowelRestoration {
 public:
  /// Builds the dataset from raw text; `source` names it in error messages. Throws
  /// std::invalid_argument for bad options or for a text too short to give each part one
  /// window (the message names the source and the sizes).
  VowelRestoration(const std::string& raw_text, const VowelOptions& options = {},
                   const std::string& source = "text");
  /// Reads any UTF-8 (or plain ASCII) file. Throws std::runtime_error naming the file for a
  /// missing, unreadable or empty file, one that is not a regular file (a device, a pipe), one
  /// larger than kMaxCorpusBytes, or one with a zero byte (not text); std::invalid_argument as
  /// above.
  static VowelRestoration from_file(const std::string& path, const VowelOptions& options = {});

  /// vowel_vocabulary(), shared by the encoder and the decoder.
  const Vocabulary& vocabulary() const { return vocabulary_; }
  /// The window, stride and held-out share given to the constructor.
  const VowelOptions& options() const { return options_; }
  /// The file (or name) the text came from.
  const std::string& source() const { return source_; }
  /// Bytes of the raw text.
  std::size_t raw_bytes() const { return raw_bytes_; }
  /// The normalised text: lower-case letters and single spaces.
  const std::string& text() const { return text_; }
  /// Offset in text() where the held-out part begins (text().size() if there is none).
  std::size_t boundary() const { return boundary_; }

  /// Number of windows that lie entirely inside one part.
  std::size_t num_windows(Split split) const;
  /// Offset in text() of window `index` of a part.
  std::size_t window_start(Split split, std::size_t index) const;
  /// The plain text of window `index` of a part.
  std::string window(Split split, std::size_t index) const;

  /// The windows `indices` of a part, in that order: src, tgt_in, tgt_out, each
  /// `[indices.size(), window]`.
  Batch batch(Split split, const std::vector<std::size_t>& indices) const;

 private:
  VowelOptions options_;
  std::string source_;
  std::size_t raw_bytes_;
  std::string text_;
  std::size_t boundary_;
  Vocabulary vocabulary_;
  std::vector<std::int32_t> plain_ids_;   // text_ as ids
  std::vector<std::int32_t> masked_ids_;  // mask_vowels(text_) as ids
};

/// restore_input_ids as a batch of one row, `[1, length]`, ready for decoding.
TokenIds restore_source_ids(const Vocabulary& vocabulary, const std::string& text,
                            std::size_t max_len);

/// Up to `count` held-out windows that do not overlap, spread evenly over the held-out text:
/// their indices, in order. What chapter 11 tests on and computes its held-out loss on.
std::vector<std::size_t> held_out_windows(const VowelRestoration& data, std::size_t count);
/// Up to `count` windows of part `split` that do not overlap, spread evenly over that part: their
/// indices, in order (held_out_windows is this for the held-out part).
std::vector<std::size_t> spread_windows(const VowelRestoration& data, Split split,
                                        std::size_t count);

/// Forced tokens for decoding vowel restoration (DecodeOptions::forced): src `[B, S]` (text with
/// its vowels hidden as `*`, ids of `source_vocabulary`) -> `[B, S]`: kFreeToken (decoding.hpp)
/// where src is `*` or a reserved id (nothing to copy), else the id of the same character in
/// `target_vocabulary`. Every letter and space the input shows is thus kept; the model only fills
/// in the `*`.
TokenIds vowel_forcing(const TokenIds& src, const Vocabulary& source_vocabulary,
                       const Vocabulary& target_vocabulary);
/// The ids of a, e, i, o, u in `vocabulary`: DecodeOptions::free_choices for "at a `*` only a
/// vowel may be chosen".
std::vector<std::int32_t> vowel_ids(const Vocabulary& vocabulary);

}  // namespace tfm
