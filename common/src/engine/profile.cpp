#include "tfm/engine/profile.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <map>
#include <utility>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace tfm::profile {
namespace {

using Clock = std::chrono::steady_clock;

// A Scope that is running: what it is, when it started, and how long the Scopes nested in it took
// (which are not its own time).
struct Frame {
  Entry* entry;
  Clock::time_point start;
  double nested_seconds = 0.0;
};

struct State {
  bool on = false;
  std::map<std::string, Entry> entries;
  std::vector<Frame> running;
  // The traced steps' clock: the last mark, and how long the outermost Scopes that ended since
  // then took (their time is their own, not the next step's).
  Clock::time_point last_mark = Clock::now();
  double scoped_since_mark = 0.0;
};

State& state() {
  static State s;  // written by the thread that calls the layers only (see begin)
  return s;
}

std::string product_kind(const Product& p) {
  std::string kind = std::string("product ") + p.op_a + p.op_b + " ";
  if (p.batch > 1) kind += std::to_string(p.batch) + " x ";
  return kind + std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
}

}  // namespace

bool enabled() {
  return state().on;
}

bool set_enabled(bool on) {
  mark();
  return std::exchange(state().on, on);
}

void reset() {
  state().entries.clear();
  state().running.clear();
  mark();
}

std::vector<Entry> entries() {
  std::vector<Entry> list;
  for (const auto& [kind, entry] : state().entries) list.push_back(entry);
  std::stable_sort(list.begin(), list.end(),
                   [](const Entry& a, const Entry& b) { return a.seconds > b.seconds; });
  return list;
}

bool Scope::begin(const char* kind, const Product* product) {
#ifdef _OPENMP
  if (omp_in_parallel()) return false;  // its caller's Scope times the whole parallel region
#endif
  State& s = state();
  const std::string name = product ? product_kind(*product) : std::string(kind);
  Entry& entry = s.entries[name];
  if (entry.calls == 0) {
    entry.kind = name;
    entry.is_product = product != nullptr;
    if (product) entry.product = *product;
  }
  s.running.push_back({&entry, Clock::now()});
  return true;
}

// The time since the last mark belongs to the step that ends now, unless a Scope is running (then
// it is that Scope's) or OpenMP's workers are running (their caller is timed).
bool charges_steps() {
#ifdef _OPENMP
  if (omp_in_parallel()) return false;
#endif
  return state().running.empty();
}

void end_step(const char* component, const char* what) {
  State& s = state();
  if (!s.on || !charges_steps()) return;
  const Clock::time_point now = Clock::now();
  const std::string kind = std::string("[") + component + "] " + what;
  Entry& entry = s.entries[kind];
  entry.kind = kind;
  entry.seconds += std::chrono::duration<double>(now - s.last_mark).count() - s.scoped_since_mark;
  entry.calls += 1;
  s.last_mark = now;
  s.scoped_since_mark = 0.0;
}

void mark() {
  State& s = state();
  if (!charges_steps()) return;
  s.last_mark = Clock::now();
  s.scoped_since_mark = 0.0;
}

void count_inputs(const float* a, std::size_t a_size, const float* b, std::size_t b_size) {
  State& s = state();
  if (!s.on || s.running.empty() || !s.running.back().entry->is_product) return;
  const Clock::time_point start = Clock::now();
  // A subnormal float has a zero exponent and a non-zero fraction: tested on the bits, so that
  // the loop vectorises (std::fpclassify is a call per value).
  const auto count = [](const float* p, std::size_t n) {
    std::size_t subnormal = 0;
#pragma omp simd reduction(+ : subnormal)
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t bits;
      std::memcpy(&bits, p + i, sizeof bits);
      subnormal += (bits & 0x7f800000u) == 0 && (bits & 0x007fffffu) != 0 ? 1 : 0;
    }
    return subnormal;
  };
  Frame& product = s.running.back();
  product.entry->inputs += a_size + b_size;
  product.entry->subnormal_inputs += count(a, a_size) + count(b, b_size);
  // The counting is the profile's own work, not the product's: a kind of its own.
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  product.nested_seconds += seconds;
  Entry& counting = s.entries["profile: counting subnormal inputs"];
  counting.kind = "profile: counting subnormal inputs";
  counting.seconds += seconds;
  counting.calls += 1;
}

void Scope::end() {
  State& s = state();
  if (s.running.empty()) return;  // reset() ran inside this Scope: nothing to add it to
  const Frame frame = s.running.back();
  s.running.pop_back();
  const double total = std::chrono::duration<double>(Clock::now() - frame.start).count();
  frame.entry->seconds += total - frame.nested_seconds;
  frame.entry->calls += 1;
  if (!s.running.empty())
    s.running.back().nested_seconds += total;
  else
    s.scoped_since_mark += total;
}

}  // namespace tfm::profile
