/// \file trace.hpp
/// \brief Chapter 01: the shape trace: every step of every component reports what it computed and
/// the shape of the result, indented by nesting.
///
/// \code
/// Transformer
///   Encoder
///     layer 0
///       [MultiHeadAttention] split heads   Q -> [2, 8, 5, 64]   (batch, heads, len_q, d_k)
/// \endcode
///
/// The trace is produced by the library itself, so the chapters never re-type a shape.
/// When it is off (the default) every call returns after one branch on a global flag.
/// Its steps also name the time of the profile (engine/profile.hpp): when the profile is on, each
/// step is charged the time since the step before it, so the layers carry no profiling of their own.
///
/// Four forms, one per purpose. A layer traces a step where it computes it, without a second line,
/// with a Component (a tensor passes through it; an lvalue may be traced as a statement too):
/// \code
/// constexpr trace::Component traced("MultiHeadAttention");
/// const Tensor3 query = traced(w_q.forward(x), "project queries", "Q", "batch, len_q, d_model");
/// traced(sum, "x + dropout(sublayer(x))", "sum", "batch, len, d_model");
/// \endcode
/// A step known only by its shape (chapter 01 has no tensors) is write_step; free text is note;
/// a level of nesting is a Scope.
/// A Capture keeps the lines as text and as Records (component, step, tensor, shape, axes,
/// depth), which a chapter can fold or filter without parsing the text.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tfm/core/tensor.hpp"
#include "tfm/engine/profile.hpp"

namespace tfm::trace {

/// Is the trace on?
bool enabled();
/// Turns the trace on or off; returns the previous setting.
bool set_enabled(bool on);
/// Sends trace lines to `out` (default: std::cout). Tests pass a std::ostringstream.
void set_output(std::ostream& out);

/// One line of the trace, as data.
struct Record {
  /// What the line is.
  enum class Kind {
    kScope,  ///< the title of a nesting level; the records after it are one deeper
    kStep,   ///< one step of a component and the shape it produced
    kNote,   ///< free text
  };
  Kind kind = Kind::kNote;  ///< scope, step or note
  int depth = 0;            ///< nesting level (0 = outermost); printed as 2 spaces each
  std::string component;    ///< step: the component, e.g. "MultiHeadAttention"
  std::string what;         ///< step: what it did, e.g. "split heads"
  std::string tensor;       ///< step: the result's name, e.g. "Q"
  std::string shape;        ///< step: the result's shape, e.g. "[2, 8, 5, 64]"
  std::string axes;         ///< step: the names of its axes, e.g. "batch, heads, len_q, d_k"
  std::string text;         ///< scope: its title; note: its text

  /// The line as printed, without the indentation:
  /// `[component] what   tensor -> [shape]   (axes)` for a step.
  std::string line() const;
  /// Is it the same step or scope as `other` at the same depth (what the trace shows)?
  bool operator==(const Record& other) const;
  /// The opposite of operator==.
  bool operator!=(const Record& other) const { return !(*this == other); }
};

/// Writes one step known by its shape (when the trace is on):
/// `[component] what   tensor -> [shape]   (axes)`.
void write_step(const std::string& component, const std::string& what, const std::string& tensor,
                const std::string& shape, const std::string& axes);

/// The steps of one component, traced where they are computed:
/// `traced(expression, what, name, axes)` reports the step and returns the expression's tensor.
class Component {
 public:
  /// `name` is shown in brackets on every step, e.g. `[FeedForward]`.
  constexpr explicit Component(const char* name) : name_(name) {}
  /// Reports step `what`, which produced `tensor` (named `tensor_name`, axes `axes`), and hands
  /// the tensor back as it came (a temporary as an rvalue, to be moved from, never copied). Use
  /// the result as a value: a reference bound to a temporary's result would dangle.
  template <class Tensor>
  Tensor&& operator()(Tensor&& tensor, const char* what, const char* tensor_name,
                      const char* axes) const {
    if (enabled()) write_step(name_, what, tensor_name, shape_string(tensor.shape()), axes);
    if (profile::enabled()) profile::end_step(name_, what);
    return std::forward<Tensor>(tensor);
  }
  /// The component's name.
  constexpr const char* name() const { return name_; }

 private:
  const char* name_;
};

/// Writes a free-form note at the current depth (only when the trace is on).
void note(const std::string& text);

/// Opens a nesting level for the lifetime of the object: prints `title`, then indents
/// every line written until it is destroyed.
class Scope {
 public:
  /// Prints `title` at the current depth (only when the trace is on), then indents one level. The
  /// profile's next step is timed from here, and again from where the Scope closes.
  explicit Scope(const std::string& title);
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  bool active_;
};

/// Turns the trace on (or off) for the lifetime of the object and restores it after.
class Enable {
 public:
  /// `on` = false silences the trace inside a block, e.g. around a helper's own forward pass.
  explicit Enable(bool on = true) : previous_(set_enabled(on)) {}
  ~Enable() { set_enabled(previous_); }
  Enable(const Enable&) = delete;
  Enable& operator=(const Enable&) = delete;

 private:
  bool previous_;
};

/// Prints records as the trace prints them: each at its depth, one line each.
void print(const std::vector<Record>& records, std::ostream& out);

/// The end of the scope that opens at `records[begin]`: the index of the first record after
/// its last nested one (records.size() at the end). For a step or a note, begin + 1.
std::size_t scope_end(const std::vector<Record>& records, std::size_t begin);

/// Captures the trace, as text and as records, for the lifetime of the object.
class Capture {
 public:
  Capture();
  ~Capture();
  Capture(const Capture&) = delete;
  Capture& operator=(const Capture&) = delete;
  /// The lines written so far, without their indentation.
  std::vector<std::string> lines() const;
  /// Everything written so far, indentation and newlines included.
  std::string text() const;
  /// The lines written so far, as data.
  const std::vector<Record>& records() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tfm::trace
