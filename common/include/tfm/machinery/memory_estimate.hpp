/// \file memory_estimate.hpp
/// \brief Machinery (not a lesson): how much memory a configuration needs, estimated from what the layers keep, and a
/// check that refuses, with the estimate, a configuration the machine cannot hold.
///
/// `d_model=4000000000` in a checkpoint's config.txt, or `--set batch_size=100000`, is a valid
/// configuration that no machine can run: without this check it grows to gigabytes and ends in
/// `std::bad_alloc`, or meets the kernel's OOM killer. The estimate below costs nothing to
/// compute, so it is made before a single tensor is allocated.
///
/// Notation: B batch, S src_len, T tgt_len, d d_model, f d_ff, H n_heads, V tgt_vocab_size,
/// M max_len, P the parameter count (tfm::total_parameters), N_e and N_d the layers, δ = 1 if
/// dropout > 0 else 0. Floats are 4 bytes, masks 1 byte per entry, token ids 4 bytes.
///
/// **Training** (one step of forward, loss, backward and Adam), in bytes:
///
/// | part                | bytes                                                          |
/// |---------------------|----------------------------------------------------------------|
/// | parameters          | 4P                                                             |
/// | gradients           | 4P (every tfm::Param has its `grad`)                           |
/// | Adam's moments      | 8P (m and v)                                                   |
/// | positional tables   | 4 · 2Md (the encoder's and the decoder's)                      |
/// | activations         | N_e · enc(B, S) + N_d · dec(B, T, S) + stacks(B, S, T)          |
/// | workspace           | 4 · (2BTV + 4BL·max(d, f) + 3BHL²), L = max(S, T)               |
///
/// where the activations are what forward keeps for backward:
/// - enc(B, S), one encoder layer, with n = BS:
///   floats 8nd + nf + BHS² + 2n — self-attention's input, Q, K, V and the concatenated heads
///   (5nd), the attention weights (BHS²), two LayerNorms' x̂ and 1/σ (2nd + 2n), the
///   feed-forward's input (nd) and hidden layer (nf);
///   bytes BS² + nf + δ(2nd + nf) — the mask, ReLU's sign mask, the dropout masks.
/// - dec(B, T, S), one decoder layer, with m = BT: floats 12md + 3BSd + mf + BHT² + BHTS + 3m —
///   self-attention as above (5md + BHT²), cross-attention's query input, Q and concatenated
///   heads (3md), its own copy of the encoder output and its K and V (3BSd), weights (BHTS),
///   three LayerNorms (3md + 3m), the feed-forward (md + mf);
///   bytes BT² + BTS + mf + δ(3md + mf).
/// - stacks(B, S, T): floats BTd + BTV (the generator's input, the loss's softmax), bytes
///   BS² + BT² + BTS (the model's three masks) + δ(BSd + BTd) (embedding dropout)
///   + 4 · (2BS + 3BT) (token ids kept by the stacks, the embeddings and the loss).
///
/// The workspace is what exists only for a moment: the logits and their gradient (2BTV) beside
/// the loss's softmax, and one layer's backward temporaries (a few `[B, L, max(d, f)]` and
/// `[B, H, L, L]` tensors).
///
/// **Inference** (encoding a batch of B sources, then decoding T steps with the key/value cache):
/// parameters, gradients and tables as above (no Adam), the encoder's activations (forward keeps
/// them even when no backward follows; no dropout masks), the caches
/// N_d · 4 · (2BTd + 2BSd), the decoder layers' activations at one position
/// N_d · dec(B, 1, S) and the workspace 4 · (2BV + 4BS·max(d, f) + 3BHS²). Beam search with k
/// beams decodes B·k rows: pass that as the batch.
///
/// **Loading a checkpoint** (tfm::load_parameters): inference with B = 1, plus the copy of every
/// parameter that is read and checked before anything is copied into the model (4P), plus the
/// bytes of the largest file while it is parsed.
///
/// These are estimates of the tensors, not of the allocator's overhead or of the program's
/// code: their use is to refuse configurations that are off by orders of magnitude, with a
/// number the user can act on, not to predict the peak to the megabyte.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include "tfm/model/config.hpp"

namespace tfm {

/// Thrown by require_memory(): the configuration needs more memory than the machine has. The
/// message gives both, in GiB, and the parts of the estimate.
class MemoryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The estimated bytes a use of a configuration needs, by part (see the file's formulas).
/// Bytes are doubles: an absurd configuration's need does not fit in 64 bits.
struct MemoryEstimate {
  std::string what;              ///< e.g. "training with batch 64", for the messages
  double parameters = 0;         ///< 4P: the weights
  double gradients = 0;          ///< 4P: their gradients
  double optimizer = 0;          ///< 8P: Adam's two moments (training only)
  double positional_tables = 0;  ///< 8Md: the sinusoid tables of the two stacks
  double activations = 0;        ///< kept by forward for backward; in inference with the caches
  double workspace = 0;          ///< temporaries of the worst moment of a step
  double checkpoint_copy = 0;    ///< a loaded checkpoint's weights before they are copied
  /// The sum of all parts.
  double total() const;
  /// One line: "about 1.23 GiB (parameters 0.10 GiB, gradients ..., ...)"; zero parts are left out.
  std::string describe() const;
};

/// Training one step with batches of `batch_size` sequences of the config's src_len and tgt_len.
MemoryEstimate training_memory(const Config& config, std::size_t batch_size);
/// Decoding `batch_size` rows (sources of src_len, up to tgt_len steps) without training.
MemoryEstimate inference_memory(const Config& config, std::size_t batch_size);
/// Loading a checkpoint of `config` into a model built from it: inference_memory(config, 1)
/// plus the checked copy of the weights load_parameters reads first.
MemoryEstimate loading_memory(const Config& config);

/// The memory this process may use: the machine's physical memory
/// (`sysconf(_SC_PHYS_PAGES) · sysconf(_SC_PAGE_SIZE)`), or the cgroup's limit when one is set
/// lower (a container: `/sys/fs/cgroup/memory.max`, or cgroup v1's `memory.limit_in_bytes`).
struct MachineMemory {
  double bytes = 0;    ///< what may be used
  std::string source;  ///< where the figure comes from, e.g. "physical memory"
};
/// Reads the figures above once per call (cheap: a sysconf and at most two small files).
MachineMemory machine_memory();

/// Bytes as a person reads them: "512 bytes", "3.4 MiB", "1.23 GiB", "1.6e+10 GiB".
std::string format_bytes(double bytes);

/// Throws MemoryError unless `need.total()` fits in `have.bytes`; the message gives the estimate
/// in GiB with its parts, the machine's memory and where that figure comes from. `have` defaults
/// to machine_memory(); the tests pass a small machine.
void require_memory(const MemoryEstimate& need, const MachineMemory& have = machine_memory());

}  // namespace tfm
