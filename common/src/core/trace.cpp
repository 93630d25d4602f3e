#include "tfm/core/trace.hpp"

#include <iostream>
#include <sstream>

namespace tfm::trace {
namespace {

struct State {
  bool on = false;
  int depth = 0;
  std::ostream* out = &std::cout;
  std::vector<Record>* records = nullptr;  // a Capture's records, or none
};

State& state() {
  static State s;
  return s;
}

// Every line goes through here: kept as a record (while capturing) and printed at its depth.
void emit(Record record) {
  State& s = state();
  record.depth = s.depth;
  *s.out << std::string(static_cast<std::size_t>(2 * s.depth), ' ') << record.line() << '\n';
  if (s.records) s.records->push_back(std::move(record));
}

}  // namespace

bool enabled() {
  return state().on;
}

bool set_enabled(bool on) {
  bool previous = state().on;
  state().on = on;
  return previous;
}

void set_output(std::ostream& out) {
  state().out = &out;
}

std::string Record::line() const {
  if (kind != Kind::kStep) return text;
  // Columns keep a long trace readable: "[Component] what" | "tensor -> shape" | axes.
  std::string head = "[" + component + "] " + what;
  std::string result = tensor + " -> " + shape;
  if (head.size() < 40) head.resize(40, ' ');
  if (result.size() < 26) result.resize(26, ' ');
  std::string out = head + " " + result + " " + (axes.empty() ? "" : "(" + axes + ")");
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

bool Record::operator==(const Record& other) const {
  return kind == other.kind && depth == other.depth && component == other.component &&
         what == other.what && tensor == other.tensor && shape == other.shape &&
         axes == other.axes && text == other.text;
}

void write_step(const std::string& component, const std::string& what, const std::string& tensor,
                const std::string& shape, const std::string& axes) {
  if (!enabled()) return;
  Record step;
  step.kind = Record::Kind::kStep;
  step.component = component;
  step.what = what;
  step.tensor = tensor;
  step.shape = shape;
  step.axes = axes;
  emit(std::move(step));
}

void note(const std::string& text) {
  if (!enabled()) return;
  Record line;
  line.text = text;
  emit(std::move(line));
}

void print(const std::vector<Record>& records, std::ostream& out) {
  for (const Record& r : records)
    out << std::string(static_cast<std::size_t>(2 * r.depth), ' ') << r.line() << '\n';
}

std::size_t scope_end(const std::vector<Record>& records, std::size_t begin) {
  std::size_t end = begin + 1;
  if (records[begin].kind != Record::Kind::kScope) return end;
  while (end < records.size() && records[end].depth > records[begin].depth) ++end;
  return end;
}

Scope::Scope(const std::string& title) : active_(enabled()) {
  if (profile::enabled()) profile::mark();
  if (!active_) return;
  Record scope;
  scope.kind = Record::Kind::kScope;
  scope.text = title;
  emit(std::move(scope));
  ++state().depth;
}

Scope::~Scope() {
  if (profile::enabled()) profile::mark();
  if (active_) --state().depth;
}

struct Capture::Impl {
  std::ostringstream buffer;
  std::vector<Record> records;
  std::ostream* previous_out;
  std::vector<Record>* previous_records;
  bool previous_on;
  int previous_depth;
};

Capture::Capture() : impl_(std::make_unique<Impl>()) {
  State& s = state();
  impl_->previous_out = s.out;
  impl_->previous_records = s.records;
  impl_->previous_on = s.on;
  impl_->previous_depth = s.depth;
  s.out = &impl_->buffer;
  s.records = &impl_->records;
  s.on = true;
  s.depth = 0;
}

Capture::~Capture() {
  State& s = state();
  s.out = impl_->previous_out;
  s.records = impl_->previous_records;
  s.on = impl_->previous_on;
  s.depth = impl_->previous_depth;
}

std::vector<std::string> Capture::lines() const {
  std::vector<std::string> out;
  for (const Record& r : impl_->records) out.push_back(r.line());
  return out;
}

std::string Capture::text() const {
  return impl_->buffer.str();
}

const std::vector<Record>& Capture::records() const {
  return impl_->records;
}

}  // namespace tfm::trace
