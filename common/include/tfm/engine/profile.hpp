/// \file profile.hpp
/// \brief Engine (not a lesson): where a training step's time goes: wall-clock time by kind of work (every
/// matrix product by shape and transposes, softmax, LayerNorm, dropout, copies, Adam, ...).
///
/// `perf` says which functions are hot; it cannot say that the `tn` product with K = 5,120 runs
/// at half the rate of the same product measured alone. This can: every product records its
/// shape, so the bench (`./tutorial bench --profile`) times OpenBLAS on exactly that shape
/// beside it.
///
/// \code
/// tfm::profile::set_enabled(true);
/// train_one_step();
/// for (const tfm::profile::Entry& e : tfm::profile::entries()) ...   // slowest kind first
/// \endcode
///
/// Two things mark the work. A Scope times its own lifetime as one kind: every matrix product
/// (core/matmul.cpp), the loss, clipping, Adam. The layers and the model carry no profiling of their
/// own: the shape trace (core/trace.hpp) already names every step they take, so each traced step
/// is charged the time since the step before it, as the kind "[Component] what" (the words of its
/// trace line), and the opening and closing of a trace::Scope start the count afresh (the time
/// before them is left unmarked). The time of a Scope nested inside another, or inside a traced
/// step, counts for the inner one only, so the kinds add up to (at most) the whole step. Only the
/// thread that calls the layers records (work that OpenMP spreads over threads is timed by its
/// caller). When the profile is off (the default) a Scope or a step costs one branch.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tfm::profile {

/// Is the profile on?
bool enabled();
/// Turns the profile on or off; returns the previous setting.
bool set_enabled(bool on);
/// Forgets everything recorded so far (call it between steps, when no Scope is running).
void reset();

/// The shape of one matrix product kind: `batch` products of op(A) `[m, k]` · op(B) `[k, n]`.
struct Product {
  char op_a = 'n';        ///< A: 'n' as stored, 't' transposed (row-major storage)
  char op_b = 'n';        ///< B: 'n' as stored, 't' transposed
  std::size_t batch = 1;  ///< how many products of this shape one call runs
  std::size_t m = 0;      ///< rows of op(A) and of the result
  std::size_t n = 0;      ///< columns of op(B) and of the result
  std::size_t k = 0;      ///< the inner dimension
  /// Floating-point operations of one call: 2 per multiply-add.
  double flops() const { return 2.0 * double(batch) * double(m) * double(n) * double(k); }
};

/// One kind of work and its total over everything recorded.
struct Entry {
  std::string kind;       ///< e.g. "[LayerNorm] normalise over d_model", "product nt 5120x1024x256"
  double seconds = 0.0;   ///< wall time, nested Scopes excluded
  std::size_t calls = 0;  ///< how many Scopes of this kind ended
  bool is_product = false;           ///< a matrix product (then `product` holds its shape)
  Product product;                   ///< the product's shape (if is_product)
  std::size_t inputs = 0;            ///< a product's operand values, summed over its calls
  std::size_t subnormal_inputs = 0;  ///< how many of them were subnormal (below 2^-126, not 0)
};

/// Everything recorded since the last reset, the most time first.
std::vector<Entry> entries();

/// Counts the subnormal values among the two operands of the product that is being timed (the
/// innermost running product Scope): with the flush on (engine/machine.hpp) there are none, with it
/// off they show where an Intel core would slow down. Does nothing when the profile is off.
void count_inputs(const float* a, std::size_t a_size, const float* b, std::size_t b_size);

/// Charges the time since the last mark, less the Scopes that ran in it, to the traced step
/// "[component] what", and marks now. The trace calls it for every step; inside a running Scope it
/// does nothing (the Scope owns that time).
void end_step(const char* component, const char* what);

/// Marks now without charging anyone: the time since the last mark stays unmarked. The trace calls
/// it where a trace::Scope opens or closes.
void mark();

/// Times its own lifetime as work of one kind, e.g. `profile::Scope timed("Adam step");`.
class Scope {
 public:
  /// Starts timing work of kind `kind` (when the profile is on).
  explicit Scope(const char* kind) : active_(enabled()) {
    if (active_) active_ = begin(kind, nullptr);
  }
  /// Starts timing a matrix product: its kind is named from its transposes and shape.
  explicit Scope(const Product& product) : active_(enabled()) {
    if (active_) active_ = begin(nullptr, &product);
  }
  /// Adds the time since the constructor, less the nested Scopes' time, to the kind.
  ~Scope() {
    if (active_) end();
  }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  bool begin(const char* kind, const Product* product);  // false on an OpenMP worker
  void end();
  bool active_;
};

}  // namespace tfm::profile
