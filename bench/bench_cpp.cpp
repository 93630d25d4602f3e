// The C++ half of `./tutorial bench`: times the library on the work that bench/reference.py gives
// PyTorch, and prints ONE line of JSON per run for bench/measure to put in its table.
//
//   bench_transformer --row sgemm                     cblas_sgemm on the `vowels` model's shapes
//   bench_transformer --row train --steps 3           training steps at the `vowels` preset
//                                 [--profile]         ... and where their time went (also decode)
//                                 [--keep-subnormals] ... with subnormal floats not flushed to 0
//   bench_transformer --row forward --runs 5          forward of the `csdn` preset, evaluation mode
//   bench_transformer --row decode --batch 64         greedy decoding of 40-character windows
//                                   [--uncached]      ... re-running the decoder on the prefix
//
// Each run is a fresh process, so its peak resident memory belongs to that row alone. The thread
// counts come from the environment (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS, set by bench/measure); the
// JSON reports the ones really in use, and how many cores were busy (CPU time / wall time).
// Timings only: the tests check that the code is right, never how fast it is.
#include <cblas.h>  // the sgemm rate and OpenBLAS's own thread count; no xtensor-blas in this file
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <oneapi/dnnl/dnnl.hpp>
#include <ostream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "tfm/core/matmul.hpp"
#include "tfm/core/no_grad.hpp"
#include "tfm/core/random.hpp"
#include "tfm/decode/decoding.hpp"
#include "tfm/engine/bf16_products.hpp"
#include "tfm/engine/machine.hpp"
#include "tfm/engine/precision.hpp"
#include "tfm/engine/profile.hpp"
#include "tfm/machinery/command_line.hpp"
#include "tfm/model/config.hpp"
#include "tfm/model/transformer.hpp"
#include "tfm/tasks/vowel_restoration.hpp"
#include "tfm/train/adam.hpp"
#include "tfm/train/trainer.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace {

using Clock = std::chrono::steady_clock;

// ---------------------------------------------------------------------------------------------
// Measuring: wall time, CPU time of every thread of the process, peak resident memory.

double seconds_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// User + system time of all the process's threads so far: CPU time / wall time = cores busy.
double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return double(t.tv_sec) + 1e-6 * double(t.tv_usec); };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// The largest resident set the process has had so far (Linux counts ru_maxrss in KiB).
double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_maxrss) / 1024.0;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// Runs `work` `warmup` times untimed, then `runs` times timed: the seconds of each timed run
// and the cores busy over all of them.
struct Timings {
  std::vector<double> seconds;
  double cores_busy = 0.0;
};
Timings time_runs(int warmup, int runs, const std::function<void()>& work) {
  for (int i = 0; i < warmup; ++i) work();
  Timings t;
  const double cpu_start = cpu_seconds();
  const Clock::time_point wall_start = Clock::now();
  for (int i = 0; i < runs; ++i) {
    const Clock::time_point start = Clock::now();
    work();
    t.seconds.push_back(seconds_between(start, Clock::now()));
  }
  t.cores_busy = (cpu_seconds() - cpu_start) / seconds_between(wall_start, Clock::now());
  return t;
}

// ---------------------------------------------------------------------------------------------
// The JSON line: a flat object of numbers, strings, lists of numbers and nested objects.

class JsonObject {
 public:
  JsonObject& number(const std::string& key, double value) {
    std::ostringstream text;
    text.precision(9);
    text << value;
    return raw(key, text.str());
  }
  JsonObject& text(const std::string& key, const std::string& value) {
    std::string quoted = "\"";
    for (const char c : value) {
      if (c == '"' || c == '\\') quoted += '\\';
      if (c != '\n') quoted += c;
    }
    return raw(key, quoted + "\"");
  }
  JsonObject& numbers(const std::string& key, const std::vector<double>& values) {
    std::ostringstream list;
    list.precision(9);
    list << "[";
    for (std::size_t i = 0; i < values.size(); ++i) list << (i ? ", " : "") << values[i];
    return raw(key, list.str() + "]");
  }
  JsonObject& object(const std::string& key, const JsonObject& value) {
    return raw(key, value.str());
  }
  JsonObject& objects(const std::string& key, const std::vector<JsonObject>& values) {
    std::string list = "[";
    for (std::size_t i = 0; i < values.size(); ++i) list += (i ? ", " : "") + values[i].str();
    return raw(key, list + "]");
  }
  std::string str() const { return "{" + body_ + "}"; }

 private:
  JsonObject& raw(const std::string& key, const std::string& value) {
    body_ += (body_.empty() ? "\"" : ", \"") + key + "\": " + value;
    return *this;
  }
  std::string body_;
};

// Every Config field (Config::get gives each as text; numbers stay numbers in the JSON), so
// that bench/reference.py builds PyTorch's model from exactly these settings.
JsonObject config_json(const tfm::Config& config) {
  JsonObject out;
  for (const std::string& key : tfm::Config::keys()) {
    const std::string value = config.get(key);
    std::istringstream parse(value);
    double number = 0.0;
    if ((parse >> number) && parse.eof())
      out.number(key, number);
    else
      out.text(key, value);
  }
  return out;
}

// The threads each pool really has, as the libraries report them (asked after the work, so that
// whatever the library configured is in place): OpenBLAS's, and OpenMP's when the library runs
// loops on it.
JsonObject threads_json() {
  JsonObject out;
  out.number("openblas", openblas_get_num_threads());
#ifdef _OPENMP
  out.number("openmp", omp_get_max_threads());
#endif
  const char* wait_policy = std::getenv("OMP_WAIT_POLICY");
  out.text("omp_wait_policy", wait_policy ? wait_policy : "(unset)");
  out.text("openblas_config", openblas_get_config());
  out.text("openblas_kernels", tfm::blas_kernels());
  out.text("subnormals", tfm::flushes_subnormals_on_this_thread() ? "flushed to zero" : "kept");
  // Set by the user, or by the library where OpenBLAS did not know the CPU (machine.cpp).
  const char* coretype = std::getenv("OPENBLAS_CORETYPE");
  out.text("openblas_coretype", coretype ? coretype : "(unset)");
  out.text("bf16_kernels", tfm::bf16_kernels());  // "none" where --precision bf16 is refused
  return out;
}

// ---------------------------------------------------------------------------------------------
// Inputs. Random ids stand in for text: the work of a step depends on the shapes alone.

// [batch, len] ids drawn uniformly from [low, high).
tfm::TokenIds random_ids(std::size_t batch, std::size_t len, std::int32_t low, std::int32_t high,
                         tfm::Rng& rng) {
  tfm::TokenIds ids = tfm::TokenIds::from_shape({batch, len});
  for (auto& id : ids) id = low + static_cast<std::int32_t>(rng.below(std::uint64_t(high - low)));
  return ids;
}

// A batch shaped like vowel-restoration windows: src, tgt_out `[B, L]` of ordinary symbols (no
// <pad>, so every position counts in the loss), tgt_in = <bos> + tgt_out[:, :-1].
tfm::Batch random_windows(const tfm::Config& config, tfm::Rng& rng) {
  const std::size_t B = config.batch_size, L = config.tgt_len;
  tfm::Batch batch;
  batch.src =
      random_ids(B, config.src_len, tfm::kFirstSymbolId, std::int32_t(config.src_vocab_size), rng);
  batch.tgt_out = random_ids(B, L, tfm::kFirstSymbolId, std::int32_t(config.tgt_vocab_size), rng);
  batch.tgt_in = tfm::TokenIds::from_shape({B, L});
  for (std::size_t b = 0; b < B; ++b) {
    batch.tgt_in(b, 0) = tfm::kBosId;
    for (std::size_t t = 1; t < L; ++t) batch.tgt_in(b, t) = batch.tgt_out(b, t - 1);
  }
  return batch;
}

// A vowel-restoration model (default: the `vowels` preset) with the task's real vocabulary (32
// symbols: the four reserved ids, `*`, space and 26 letters).
tfm::Config vowels_config(tfm::Config config = tfm::preset("vowels")) {
  config.src_vocab_size = config.tgt_vocab_size = tfm::vowel_vocabulary().size();
  return config;
}

// ---------------------------------------------------------------------------------------------
// The rows.

// The machine's BLAS rate on the products a Linear layer of the `vowels` model runs forward:
// One product C[M, N] = A[M, K] · W[N, K]^T of the model.
struct ProductShape {
  std::size_t M, N, K;
};

// oneDNN's fp32 matmul of that product, for the comparison with OpenBLAS: one primitive per shape,
// made at its first call (the warm-up), as a library built on oneDNN would keep it.
void onednn_fp32_product(const ProductShape& s, const float* A, const float* W, float* C) {
  using dnnl::memory;
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  static std::map<std::tuple<std::size_t, std::size_t, std::size_t>, dnnl::matmul> kernels;
  const auto d = [](std::size_t x) { return static_cast<memory::dim>(x); };
  const memory::desc a({d(s.M), d(s.K)}, memory::data_type::f32, {d(s.K), 1});
  const memory::desc w({d(s.K), d(s.N)}, memory::data_type::f32, {1, d(s.K)});  // W^T, as stored
  const memory::desc c({d(s.M), d(s.N)}, memory::data_type::f32, {d(s.N), 1});
  auto found = kernels.find({s.M, s.N, s.K});
  if (found == kernels.end())
    found = kernels
                .emplace(std::make_tuple(s.M, s.N, s.K), dnnl::matmul(dnnl::matmul::primitive_desc(
                                                             dnnl::matmul::desc(a, w, c), engine)))
                .first;
  dnnl::stream stream(engine);
  memory a_memory(a, engine, const_cast<float*>(A)), w_memory(w, engine, const_cast<float*>(W)),
      c_memory(c, engine, C);
  found->second.execute(
      stream, {{DNNL_ARG_SRC, a_memory}, {DNNL_ARG_WEIGHTS, w_memory}, {DNNL_ARG_DST, c_memory}});
  stream.wait();
}

// C[M, N] = A[M, K] · W[N, K]^T with M = batch × length = 5120 tokens and (N, K) = (d, d) for
// W_Q, W_K, W_V, W_O, (d_ff, d) and (d, d_ff) for the feed-forward. Outputs preallocated: this is
// what OpenBLAS can do, the ceiling the model's GFLOP/s are compared with. OpenBLAS runs on
// `threads` threads of its own here, whatever the library chose for its products (it may keep
// OpenBLAS at one thread and split the products over its own threads).
JsonObject sgemm_row(int runs, int threads) {
  openblas_set_num_threads(threads);
  const tfm::Config c = vowels_config();
  const std::size_t tokens = c.batch_size * c.tgt_len;
  using Shape = ProductShape;
  const Shape shapes[] = {
      {tokens, c.d_model, c.d_model}, {tokens, c.d_ff, c.d_model}, {tokens, c.d_model, c.d_ff}};
  // The same products three ways: OpenBLAS's sgemm; oneDNN's fp32 matmul (would it be the better
  // fp32 library here?); and the library's bf16 products, rounding included, where the CPU has
  // bf16. Each GFLOP/s is of one of each shape, back to back.
  struct Library {
    std::string name;
    std::function<void(const Shape&, const float*, const float*, float*)> multiply;
    double flops = 0.0, seconds = 0.0;
    JsonObject per_shape;
  };
  std::vector<Library> libraries;
  libraries.push_back({"sgemm",
                       [](const Shape& s, const float* A, const float* W, float* C) {
                         cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(s.M), int(s.N),
                                     int(s.K), 1.0f, A, int(s.K), W, int(s.K), 0.0f, C, int(s.N));
                       },
                       0.0,
                       0.0,
                       {}});
  libraries.push_back({"onednn_fp32", onednn_fp32_product, 0.0, 0.0, {}});
  if (tfm::cpu_has_bf16())
    libraries.push_back({"bf16",
                         [](const Shape& s, const float* A, const float* W, float* C) {
                           tfm::bf16_products({1, s.M, s.N, s.K, false, true, 1.0f, 0.0f, A, s.K, 0,
                                               W, s.K, 0, C, s.N, 0});
                         },
                         0.0,
                         0.0,
                         {}});
  tfm::Rng rng(0);
  double cores_busy = 0.0;
  for (const Shape& s : shapes) {
    std::vector<float> A(s.M * s.K), W(s.N * s.K), C(s.M * s.N);
    for (float& a : A) a = float(rng.below(1000)) / 1000.0f - 0.5f;
    for (float& w : W) w = float(rng.below(1000)) / 1000.0f - 0.5f;
    const double flops = 2.0 * double(s.M) * double(s.N) * double(s.K);  // a multiply and an add
    for (Library& library : libraries) {
      const Timings t =
          time_runs(2, runs, [&] { library.multiply(s, A.data(), W.data(), C.data()); });
      const double seconds = median(t.seconds);
      library.per_shape.number(
          std::to_string(s.M) + "x" + std::to_string(s.N) + "x" + std::to_string(s.K),
          flops / seconds / 1e9);
      library.flops += flops;
      library.seconds += seconds;
      if (library.name == "sgemm") cores_busy = std::max(cores_busy, t.cores_busy);
    }
  }
  JsonObject out;
  out.text("row", "sgemm");
  for (const Library& library : libraries) {
    const std::string prefix = library.name == "sgemm" ? "" : library.name + "_";
    out.number(prefix + "gflops", library.flops / library.seconds / 1e9)
        .object(prefix + "gflops_per_shape", library.per_shape);
  }
  out.number("cores_busy", cores_busy).object("threads", threads_json());
  return out;
}

// OpenBLAS alone on one product kind the step ran: `batch` products of the same shape and
// transposes, each on operands of its own (as the heads of attention are), OpenBLAS on `threads`
// threads, through the routine core/matmul.cpp calls for that shape (sgemv for one row, else
// sgemm). GFLOP/s, median of `runs`.
double sgemm_alone_gflops(const tfm::profile::Product& p, int threads, int runs) {
  openblas_set_num_threads(threads);
  const bool ta = p.op_a == 't', tb = p.op_b == 't';
  const std::size_t lda = ta ? p.m : p.k, ldb = tb ? p.k : p.n;  // row-major, as stored
  const std::size_t a_size = p.m * p.k, b_size = p.k * p.n, c_size = p.m * p.n;
  std::vector<float> A(p.batch * a_size, 0.25f), B(p.batch * b_size, 0.5f), C(p.batch * c_size);
  const Timings t = time_runs(1, runs, [&] {
    for (std::size_t i = 0; i < p.batch; ++i) {
      const float *a = A.data() + i * a_size, *b = B.data() + i * b_size;
      float* c = C.data() + i * c_size;
      if (p.m == 1)  // B [N, K] or [K, N] times the row a, as matmul.cpp does
        cblas_sgemv(CblasRowMajor, tb ? CblasNoTrans : CblasTrans, int(tb ? p.n : p.k),
                    int(tb ? p.k : p.n), 1.0f, b, int(ldb), a, ta ? int(lda) : 1, 0.0f, c, 1);
      else
        cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                    int(p.m), int(p.n), int(p.k), 1.0f, a, int(lda), b, int(ldb), 0.0f, c,
                    int(p.n));
    }
  });
  openblas_set_num_threads(1);
  return p.flops() / median(t.seconds) / 1e9;
}

// Where the time of the timed steps (or runs) went, per step: every kind of work the library marks
// (tfm::profile), products with their rate inside the step and OpenBLAS's alone on that shape.
std::vector<JsonObject> profile_json(int steps) {
#ifdef _OPENMP
  const int blas_threads = omp_get_max_threads();  // the threads the library's products had
#else
  const int blas_threads = openblas_get_num_threads();
#endif
  std::vector<JsonObject> list;
  for (const tfm::profile::Entry& e : tfm::profile::entries()) {
    JsonObject entry;
    entry.text("kind", e.kind)
        .number("seconds_per_step", e.seconds / steps)
        .number("calls_per_step", double(e.calls) / steps);
    if (e.is_product)
      entry.number("gflops", e.product.flops() * double(e.calls) / e.seconds / 1e9)
          .number("gflops_alone", sgemm_alone_gflops(e.product, blas_threads, 5))
          .number("subnormal_inputs",
                  e.inputs > 0 ? double(e.subnormal_inputs) / double(e.inputs) : 0.0);
    list.push_back(entry);
  }
  return list;
}

// Training steps of a vowel-restoration model, timed inside the library's own loop (tfm::train,
// the loop chapter 11's program writes out, of the same pieces): forward, loss, backward, the
// non-finite guard, clipping, Adam. The time of step i is the time between the loop asking for
// batch i and asking for batch i + 1. With `profiled`, tfm::profile records the timed steps and
// the JSON holds the breakdown.
JsonObject train_row(const tfm::Config& config, int warmup, int steps, std::uint64_t seed,
                     bool profiled) {
  tfm::Transformer model(config, seed);
  const tfm::ParameterList params = tfm::parameters_of(model);
  tfm::Adam optimizer(params, tfm::AdamOptions::paper());
  const double setup_rss = peak_rss_mib();

  tfm::Rng rng(seed);
  std::vector<tfm::Batch> batches;
  for (int i = 0; i < warmup + steps; ++i) batches.push_back(random_windows(config, rng));

  std::vector<Clock::time_point> wall;  // when step i asked for its batch; the end last
  std::vector<double> cpu;
  const std::function<tfm::Batch(std::size_t)> next_batch = [&](std::size_t index) {
    if (profiled && index == std::size_t(warmup)) {
      tfm::profile::reset();
      tfm::profile::set_enabled(true);
    }
    wall.push_back(Clock::now());
    cpu.push_back(cpu_seconds());
    return batches[wall.size() - 1];
  };
  tfm::TrainingOptions options =
      tfm::TrainingOptions::from_config(config);  // vowels: constant rate
  options.max_steps = std::size_t(warmup + steps);
  options.trace_first_step = false;
  std::ostream discard(nullptr);  // no progress bar: a stream without a buffer drops everything
  const tfm::TrainingHistory history =
      tfm::train(model, optimizer, next_batch, {}, options, discard, false);
  wall.push_back(Clock::now());
  cpu.push_back(cpu_seconds());
  tfm::profile::set_enabled(false);

  std::vector<double> seconds;
  for (std::size_t i = std::size_t(warmup); i + 1 < wall.size(); ++i)
    seconds.push_back(seconds_between(wall[i], wall[i + 1]));
  const double timed_wall = seconds_between(wall[std::size_t(warmup)], wall.back());
  const double timed_cpu = cpu.back() - cpu[std::size_t(warmup)];

  JsonObject out;
  out.text("row", "train")
      .number("parameters", double(params.count()))
      .number("tokens_per_step", double(history.tokens) / double(warmup + steps))
      .numbers("step_seconds", seconds)
      .number("median_step_seconds", median(seconds))
      .number("first_loss", history.train_loss.front())
      .number("last_loss", history.train_loss.back())
      .number("setup_rss_mib", setup_rss)
      .number("peak_rss_mib", peak_rss_mib())
      .number("cores_busy", timed_cpu / timed_wall)
      .object("threads", threads_json())
      .object("config", config_json(config));
  if (profiled) out.objects("profile", profile_json(steps));
  return out;
}

// One forward pass of the `csdn` preset in evaluation mode on reference 000's test input:
// src = randint(0, 10000, (32, 10)), trg = randint(0, 10000, (32, 20)) -> [32, 20, 10000].
JsonObject forward_row(int runs, std::uint64_t seed) {
  const tfm::Config config = tfm::preset("csdn");
  tfm::Transformer model(config, seed);
  model.set_training(false);
  tfm::Rng rng(seed);
  const std::int32_t V = std::int32_t(config.src_vocab_size);
  const tfm::TokenIds src = random_ids(config.batch_size, config.src_len, 0, V, rng);
  const tfm::TokenIds trg = random_ids(config.batch_size, config.tgt_len, 0, V, rng);
  tfm::Tensor3 logits;
  tfm::NoGrad no_grad;  // inference, as reference.py's torch.no_grad(): nothing kept for backward
  const Timings t = time_runs(1, runs, [&] { logits = model.forward(src, trg); });
  JsonObject out;
  out.text("row", "forward")
      .number("parameters", double(tfm::parameters_of(model).count()))
      .text("output_shape", tfm::shape_string(logits.shape()))
      .numbers("run_seconds", t.seconds)
      .number("median_seconds", median(t.seconds))
      .number("peak_rss_mib", peak_rss_mib())
      .number("cores_busy", t.cores_busy)
      .object("threads", threads_json())
      .object("config", config_json(config));
  return out;
}

// Greedy decoding of `batch` vowel windows of 40 characters, 40 tokens each (no early stop at
// <eos>: every run does the same work), with the key/value cache or re-running the decoder on
// the whole prefix at every step.
JsonObject decode_row(std::size_t batch, bool cached, int runs, std::uint64_t seed, bool profiled) {
  const tfm::Config config = vowels_config();
  tfm::Transformer model(config, seed);
  tfm::Rng rng(seed);
  const tfm::TokenIds src = random_ids(batch, config.src_len, tfm::kFirstSymbolId,
                                       std::int32_t(config.src_vocab_size), rng);
  tfm::DecodeOptions options;
  options.max_steps = config.src_len;
  options.stop_at_eos = false;
  options.cached = cached;
  tfm::DecodeResult result;
  int calls = 0;
  const Timings t = time_runs(1, runs, [&] {
    if (profiled && calls++ == 1) {  // the first timed run, after the warm-up
      tfm::profile::reset();
      tfm::profile::set_enabled(true);
    }
    result = tfm::greedy_decode(model, src, options);
  });
  tfm::profile::set_enabled(false);
  JsonObject out;
  out.text("row", "decode")
      .number("batch", double(batch))
      .number("steps", double(result.steps()))
      .text("method", cached ? "key/value cache" : "decoder re-run on the whole prefix")
      .numbers("run_seconds", t.seconds)
      .number("median_seconds", median(t.seconds))
      .number("peak_rss_mib", peak_rss_mib())
      .number("cores_busy", t.cores_busy)
      .object("threads", threads_json())
      .object("config", config_json(config));
  if (profiled) out.objects("profile", profile_json(runs));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  return tfm::run_program([&] {
    tfm::CommandLine cli(
        "bench_transformer",
        "The C++ side of ./tutorial bench: one benchmark row per run, printed as "
        "one line of JSON. Threads: set OPENBLAS_NUM_THREADS (and OMP_NUM_THREADS).");
    cli.option("--row", "NAME", "sgemm | train | forward | decode")
        .option("--runs", "N", "timed runs after the warm-up (sgemm, forward, decode)", "5")
        .option("--steps", "N", "timed training steps after the warm-up (train)", "3")
        .option("--warmup", "N", "untimed training steps first (train)", "1")
        .config_options("vowels", "override one hyper-parameter of the trained model (train)")
        .option("--batch", "N", "windows decoded together (decode)", "1")
        .option("--blas-threads", "N", "OpenBLAS's threads for the sgemm row (sgemm)", "1")
        .flag("--profile",
              "record where the timed steps' or runs' time went, by kind of work (train, decode)")
        .flag("--uncached", "decode by re-running the decoder on the whole prefix (decode)")
        .flag("--keep-subnormals",
              "compute with subnormal floats kept, not flushed to zero (engine/machine.hpp): what "
              "the flush saves")
        .option("--seed", "N", "seed of the weights and of the random ids", "0")
        .option("--precision", "P",
                "fp32 | bf16: the matrix products' operands (engine/precision.hpp)", "fp32");
    if (!cli.parse(argc, argv)) return 0;
    if (cli.flag_set("--keep-subnormals")) tfm::set_subnormals_flushed(false);
    try {
      tfm::set_product_precision(tfm::precision_from_name(cli.value("--precision")));
    } catch (const std::exception& e) {
      throw tfm::UsageError(std::string("--precision: ") + e.what());
    }
    const std::string row = cli.value("--row");
    // Counts are checked like every program's (a count that wrapped negative left median() an
    // empty vector); 0 runs or steps would time nothing.
    const auto counted = [&](const char* option, std::size_t min) {
      return int(cli.count(option, min, 1000000));
    };
    const int runs = counted("--runs", 1);
    const auto seed = static_cast<std::uint64_t>(cli.count("--seed"));
    JsonObject result;
    if (row == "sgemm")
      result = sgemm_row(runs, counted("--blas-threads", 1));
    else if (row == "train")
      result = train_row(vowels_config(tfm::config_from_command_line(cli)), counted("--warmup", 0),
                         counted("--steps", 1), seed, cli.flag_set("--profile"));
    else if (row == "forward")
      result = forward_row(runs, seed);
    else if (row == "decode")
      result = decode_row(std::size_t(counted("--batch", 1)), !cli.flag_set("--uncached"), runs,
                          seed, cli.flag_set("--profile"));
    else
      throw tfm::UsageError("--row must be sgemm, train, forward or decode, got '" + row + "'");
    result.text("precision", tfm::precision_name(tfm::product_precision()));
    std::printf("%s\n", result.str().c_str());
    return 0;
  });
}
