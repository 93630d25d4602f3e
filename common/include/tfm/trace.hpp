/// \file trace.hpp
/// \brief The shape trace: every step of every component reports what it computed and
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
#pragma once

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "tfm/tensor.hpp"

namespace tfm::trace {

/// Is the trace on?
bool enabled();
/// Turns the trace on or off; returns the previous setting.
bool set_enabled(bool on);
/// Sends trace lines to `out` (default: std::cout). Tests pass a std::ostringstream.
void set_output(std::ostream& out);

/// Writes one trace line, already formatted, at the current depth.
void write_line(const std::string& text);

/// Formats and writes one step:
/// `[component] what   tensor -> [shape]   (axes)`.
void write_step(const std::string& component, const std::string& what, const std::string& tensor,
                const std::string& shape, const std::string& axes);

/// Reports one step of `component` that produced `tensor` (named `tensor_name`).
template <class Tensor>
inline void step(const char* component, const char* what, const char* tensor_name,
                 const Tensor& tensor, const char* axes) {
  if (!enabled()) return;
  write_step(component, what, tensor_name, shape_string(tensor.shape()), axes);
}

/// Writes a free-form note at the current depth (only when the trace is on).
void note(const std::string& text);

/// Opens a nesting level for the lifetime of the object: prints `title`, then indents
/// every line written until it is destroyed.
class Scope {
 public:
  /// Prints `title` at the current depth (only when the trace is on), then indents one level.
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

/// Captures the trace into a list of lines for the lifetime of the object (for tests).
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

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tfm::trace
