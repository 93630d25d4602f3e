#include "tfm/machinery/memory_estimate.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

namespace tfm {
namespace {

constexpr double kFloat = 4.0;  // bytes of a float32, and of an int32 token id
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

double as_double(std::size_t n) {
  return static_cast<double>(n);
}

// The sizes of the formulas, as doubles: an absurd configuration must not wrap around.
struct Sizes {
  double d, f, H, V, M, drop;
  explicit Sizes(const Config& c)
      : d(as_double(c.d_model)),
        f(as_double(c.d_ff)),
        H(as_double(c.n_heads)),
        V(as_double(c.tgt_vocab_size)),
        M(as_double(c.max_len)),
        drop(c.dropout > 0.0f ? 1.0 : 0.0) {}
};

// Bytes one encoder layer keeps for backward, for B sequences of S tokens (the file's enc(B, S)).
double encoder_layer_bytes(const Sizes& z, double B, double S, double drop) {
  const double n = B * S;
  const double floats = 8 * n * z.d + n * z.f + B * z.H * S * S + 2 * n;
  const double bytes = B * S * S + n * z.f + drop * (2 * n * z.d + n * z.f);
  return kFloat * floats + bytes;
}

// Bytes one decoder layer keeps, for B targets of T tokens reading sources of S (dec(B, T, S)).
double decoder_layer_bytes(const Sizes& z, double B, double T, double S, double drop) {
  const double m = B * T;
  const double floats =
      12 * m * z.d + 3 * B * S * z.d + m * z.f + B * z.H * T * T + B * z.H * T * S + 3 * m;
  const double bytes = B * T * T + B * T * S + m * z.f + drop * (3 * m * z.d + m * z.f);
  return kFloat * floats + bytes;
}

// What every use has: the weights, their gradients and the two positional tables.
MemoryEstimate model_memory(const Config& c, const std::string& what) {
  const double P = parameter_count(c);
  const Sizes z(c);
  MemoryEstimate e;
  e.what = what;
  e.parameters = kFloat * P;
  e.gradients = kFloat * P;
  e.positional_tables = kFloat * 2 * z.M * z.d;
  return e;
}

std::string config_summary(const Config& c) {
  return "d_model " + std::to_string(c.d_model) + ", d_ff " + std::to_string(c.d_ff) + ", " +
         std::to_string(c.n_heads) + " heads, " + std::to_string(c.n_encoder_layers) + " + " +
         std::to_string(c.n_decoder_layers) + " layers, vocabularies " +
         std::to_string(c.src_vocab_size) + " / " + std::to_string(c.tgt_vocab_size) +
         ", max_len " + std::to_string(c.max_len) + ", src_len " + std::to_string(c.src_len) +
         ", tgt_len " + std::to_string(c.tgt_len);
}

// A whole number in /sys/fs/cgroup, or 0 if the file is missing or says "max".
double cgroup_limit(const char* path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    return 0;
  return text.size() > 19 ? 0 : std::stod(text);
}

}  // namespace

double MemoryEstimate::total() const {
  return parameters + gradients + optimizer + positional_tables + activations + workspace +
         checkpoint_copy;
}

std::string MemoryEstimate::describe() const {
  std::string parts;
  const auto part = [&](const char* name, double bytes) {
    if (bytes > 0)
      parts += (parts.empty() ? "" : ", ") + std::string(name) + " " + format_bytes(bytes);
  };
  part("parameters", parameters);
  part("gradients", gradients);
  part("Adam's moments", optimizer);
  part("positional tables", positional_tables);
  part("activations", activations);
  part("workspace", workspace);
  part("the checkpoint's copy", checkpoint_copy);
  return "about " + format_bytes(total()) + " (" + parts + ")";
}

MemoryEstimate training_memory(const Config& c, std::size_t batch_size) {
  const Sizes z(c);
  const double B = as_double(batch_size), S = as_double(c.src_len), T = as_double(c.tgt_len);
  const double L = std::max(S, T);
  MemoryEstimate e = model_memory(
      c, "training with batch " + std::to_string(batch_size) + " (" + config_summary(c) + ")");
  e.optimizer = 2 * kFloat * parameter_count(c);
  const double stacks = kFloat * (B * T * z.d + B * T * z.V) + (B * S * S + B * T * T + B * T * S) +
                        z.drop * (B * S * z.d + B * T * z.d) + kFloat * (2 * B * S + 3 * B * T);
  e.activations = as_double(c.n_encoder_layers) * encoder_layer_bytes(z, B, S, z.drop) +
                  as_double(c.n_decoder_layers) * decoder_layer_bytes(z, B, T, S, z.drop) + stacks;
  e.workspace = kFloat * (2 * B * T * z.V + 4 * B * L * std::max(z.d, z.f) + 3 * B * z.H * L * L);
  return e;
}

MemoryEstimate inference_memory(const Config& c, std::size_t batch_size) {
  const Sizes z(c);
  const double B = as_double(batch_size), S = as_double(c.src_len), T = as_double(c.tgt_len);
  MemoryEstimate e = model_memory(
      c, "inference with batch " + std::to_string(batch_size) + " (" + config_summary(c) + ")");
  const double caches = kFloat * (2 * B * T * z.d + 2 * B * S * z.d);
  e.activations = as_double(c.n_encoder_layers) * encoder_layer_bytes(z, B, S, 0.0) + B * S * S +
                  as_double(c.n_decoder_layers) * (caches + decoder_layer_bytes(z, B, 1.0, S, 0.0));
  e.workspace = kFloat * (2 * B * z.V + 4 * B * S * std::max(z.d, z.f) + 3 * B * z.H * S * S);
  return e;
}

MemoryEstimate loading_memory(const Config& c) {
  MemoryEstimate e = inference_memory(c, 1);
  e.what = "loading the checkpoint (" + config_summary(c) + ")";
  const Sizes z(c);
  const double largest =
      std::max({as_double(c.src_vocab_size) * z.d, z.V * z.d, z.d * z.f, z.d * z.d});
  e.checkpoint_copy = kFloat * (parameter_count(c) + largest);
  return e;
}

MachineMemory machine_memory() {
  MachineMemory m;
  const long pages = ::sysconf(_SC_PHYS_PAGES), page_size = ::sysconf(_SC_PAGE_SIZE);
  m.bytes = pages > 0 && page_size > 0 ? static_cast<double>(pages) * static_cast<double>(page_size)
                                       : 0.0;
  m.source = "physical memory";
  for (const char* path :
       {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    const double limit = cgroup_limit(path);
    if (limit > 0 && (m.bytes <= 0 || limit < m.bytes)) {
      m.bytes = limit;
      m.source = std::string("the container's limit, ") + path;
    }
  }
  return m;
}

std::string format_bytes(double bytes) {
  char text[64];
  if (bytes < 1024.0)
    std::snprintf(text, sizeof text, "%.0f bytes", bytes);
  else if (bytes < kGiB)
    std::snprintf(text, sizeof text, "%.1f MiB", bytes / (1024.0 * 1024.0));
  else if (bytes < 1e4 * kGiB)
    std::snprintf(text, sizeof text, "%.2f GiB", bytes / kGiB);
  else
    std::snprintf(text, sizeof text, "%.2g GiB", bytes / kGiB);
  return text;
}

void require_memory(const MemoryEstimate& need, const MachineMemory& have) {
  if (have.bytes <= 0 || need.total() <= have.bytes) return;  // unknown memory: do not guess
  throw MemoryError(
      need.what + " needs " + need.describe() + " but this machine has " +
      format_bytes(have.bytes) + " (" + have.source +
      "); choose smaller sizes (d_model, d_ff, layers, vocabularies, max_len, batch_size)");
}

}  // namespace tfm
