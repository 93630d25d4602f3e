#include "tfm/trace.hpp"

#include <iostream>
#include <sstream>

namespace tfm::trace {
namespace {

struct State {
  bool on = false;
  int depth = 0;
  std::ostream* out = &std::cout;
};

State& state() {
  static State s;
  return s;
}

}  // namespace

bool enabled() { return state().on; }

bool set_enabled(bool on) {
  bool previous = state().on;
  state().on = on;
  return previous;
}

void set_output(std::ostream& out) { state().out = &out; }

void write_line(const std::string& text) {
  State& s = state();
  *s.out << std::string(static_cast<std::size_t>(2 * s.depth), ' ') << text << '\n';
}

void write_step(const std::string& component, const std::string& what, const std::string& tensor,
                const std::string& shape, const std::string& axes) {
  // Columns keep a long trace readable: "[Component] what" | "tensor -> shape" | axes.
  std::string head = "[" + component + "] " + what;
  std::string result = tensor + " -> " + shape;
  if (head.size() < 40) head.resize(40, ' ');
  if (result.size() < 26) result.resize(26, ' ');
  std::string line = head + " " + result + " " + (axes[0] ? std::string("(") + axes + ")" : "");
  while (!line.empty() && line.back() == ' ') line.pop_back();
  write_line(line);
}

void note(const std::string& text) {
  if (enabled()) write_line(text);
}

Scope::Scope(const std::string& title) : active_(enabled()) {
  if (!active_) return;
  write_line(title);
  ++state().depth;
}

Scope::~Scope() {
  if (active_) --state().depth;
}

struct Capture::Impl {
  std::ostringstream buffer;
  std::ostream* previous_out;
  bool previous_on;
  int previous_depth;
};

Capture::Capture() : impl_(std::make_unique<Impl>()) {
  State& s = state();
  impl_->previous_out = s.out;
  impl_->previous_on = s.on;
  impl_->previous_depth = s.depth;
  s.out = &impl_->buffer;
  s.on = true;
  s.depth = 0;
}

Capture::~Capture() {
  State& s = state();
  s.out = impl_->previous_out;
  s.on = impl_->previous_on;
  s.depth = impl_->previous_depth;
}

std::vector<std::string> Capture::lines() const {
  std::vector<std::string> out;
  std::istringstream in(impl_->buffer.str());
  for (std::string line; std::getline(in, line);) {
    std::size_t start = line.find_first_not_of(' ');
    out.push_back(start == std::string::npos ? "" : line.substr(start));
  }
  return out;
}

std::string Capture::text() const { return impl_->buffer.str(); }

}  // namespace tfm::trace
