#include "tfm/core/profile.hpp"

#include <algorithm>
#include <chrono>
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

bool enabled() { return state().on; }

bool set_enabled(bool on) { return std::exchange(state().on, on); }

void reset() {
  state().entries.clear();
  state().running.clear();
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

void Scope::end() {
  State& s = state();
  if (s.running.empty()) return;  // reset() ran inside this Scope: nothing to add it to
  const Frame frame = s.running.back();
  s.running.pop_back();
  const double total = std::chrono::duration<double>(Clock::now() - frame.start).count();
  frame.entry->seconds += total - frame.nested_seconds;
  frame.entry->calls += 1;
  if (!s.running.empty()) s.running.back().nested_seconds += total;
}

}  // namespace tfm::profile
