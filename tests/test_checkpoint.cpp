// Checkpoints: a saved model and a saved Adam state come back exactly (resumed training equals
// uninterrupted training), every damaged checkpoint is a clear CheckpointError that leaves the
// model as it was, a failed save leaves the previous checkpoint byte-identical, and a checkpoint
// exported from PyTorch (tools/checkpoint_interop.py) gives PyTorch's logits.
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "temp_dir.hpp"
#include "tfm/machinery/checkpoint.hpp"
#include "tfm/machinery/checkpoint_config.hpp"
#include "tfm/machinery/npy.hpp"
#include "tfm/machinery/saving.hpp"
#include "tfm/machinery/training_run.hpp"
#include "tfm/model/transformer.hpp"
#include "tfm/train/adam.hpp"
#include "tfm/train/cross_entropy.hpp"

using namespace tfm;
using Catch::Contains;
namespace fs = std::filesystem;

namespace {

// The tiny preset, smaller still, without dropout so that training is deterministic.
Config tiny_config() {
  Config c;
  c.src_vocab_size = 9;
  c.tgt_vocab_size = 10;
  c.d_model = 8;
  c.n_heads = 2;
  c.n_encoder_layers = 1;
  c.n_decoder_layers = 1;
  c.d_ff = 16;
  c.dropout = 0.0f;
  c.max_len = 16;
  c.src_len = 5;
  c.tgt_len = 4;
  c.batch_size = 2;
  c.learning_rate = 1e-2f;
  return c;
}

CheckpointHeader tiny_header() {
  return {tiny_config(), Vocabulary(Tokenization::kCharacters, {"a", "b", "c", " ", "\u00e9"}),
          Vocabulary(Tokenization::kWords, {"x", "y", "z", "w", "v", "u"})};
}

// A padded batch for tiny_config(): src [2, 5], tgt_in and tgt_out [2, 4].
const TokenIds kSrc = {{4, 5, 6, 7, 8}, {5, 6, 0, 0, 0}};
const TokenIds kTgtIn = {{1, 4, 5, 6}, {1, 7, 0, 0}};
const TokenIds kTgtOut = {{4, 5, 6, 2}, {7, 2, 0, 0}};

// `steps` training steps on the batch above: forward, cross-entropy, backward, Adam.
void train(Transformer& model, Adam& adam, int steps) {
  const ParameterList params = parameters_of(model);
  CrossEntropy loss(kPadId);
  for (int step = 0; step < steps; ++step) {
    params.zero_grad();
    loss.forward(model.forward(kSrc, kTgtIn), kTgtOut);
    model.backward(loss.backward());
    adam.step(model.config().learning_rate);
  }
}

// Every parameter value, in registration order: equal vectors mean bit-identical weights.
std::vector<std::vector<float>> values_of(const ParameterList& params) {
  std::vector<std::vector<float>> values;
  for (const ParameterRef& p : params) values.emplace_back(p.value, p.value + p.size);
  return values;
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Every file under `dir`, relative path -> bytes: equal snapshots mean byte-identical folders.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file())
      files[fs::relative(entry.path(), dir).string()] = read_bytes(entry.path());
  return files;
}

// What a save may leave beside `dir`: siblings named "<dir>.something" (staging, old copies).
std::vector<std::string> leftovers(const fs::path& dir) {
  std::vector<std::string> found;
  const std::string prefix = dir.filename().string() + ".";
  for (const auto& entry : fs::directory_iterator(dir.parent_path()))
    if (entry.path().filename().string().rfind(prefix, 0) == 0)
      found.push_back(entry.path().string());
  return found;
}

void replace_in_file(const fs::path& path, const std::string& from, const std::string& to) {
  std::string text = read_bytes(path);
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

// `action` must throw a CheckpointError whose message contains every one of `parts`.
void check_checkpoint_error(const std::function<void()>& action,
                            const std::vector<std::string>& parts) {
  try {
    action();
    FAIL("no CheckpointError was thrown");
  } catch (const CheckpointError& e) {
    for (const std::string& part : parts) CHECK_THAT(std::string(e.what()), Contains(part));
  }
}

// Caps the size of any file this process writes (RLIMIT_FSIZE) until destroyed: a write past
// the cap fails with EFBIG, as on a full disk, and the kernel enforces it for root too.
// SIGXFSZ, which would otherwise kill the process, is ignored meanwhile.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    REQUIRE(::getrlimit(RLIMIT_FSIZE, &saved_) == 0);
    saved_handler_ = ::signal(SIGXFSZ, SIG_IGN);
    rlimit lowered = saved_;
    lowered.rlim_cur = bytes;
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &lowered) == 0);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &saved_);
    ::signal(SIGXFSZ, saved_handler_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit saved_{};
  sighandler_t saved_handler_ = SIG_DFL;
};

TokenIds fixture_ids(const std::string& name) {
  const Tensor2 values = testing::load_fixture<2>(name);
  TokenIds ids = TokenIds::from_shape(values.shape());
  for (std::size_t i = 0; i < values.size(); ++i)
    ids.data()[i] = static_cast<std::int32_t>(values.data()[i]);
  return ids;
}

}  // namespace

TEST_CASE("Checkpoint: a saved model loads back with identical logits", "[checkpoint]") {
  Config shared = tiny_config();  // the other variant: one embedding, bias-free attention
  shared.shared_embedding = true;
  shared.attention_bias = false;
  shared.tgt_vocab_size = shared.src_vocab_size;
  for (const Config& config : {tiny_config(), shared}) {
    INFO("shared_embedding " << config.shared_embedding);
    testing::TempDir tmp("checkpoint", "round_trip");
    const fs::path dir = tmp.path / "ckpt";
    CheckpointHeader header = tiny_header();
    header.config = config;
    if (config.shared_embedding)
      header.tgt_vocabulary = Vocabulary(Tokenization::kWords, {"x", "y", "z", "w", "v"});

    Transformer original(config, 1);
    original.set_training(false);
    const Tensor3 expected = original.forward(kSrc, kTgtIn);
    save_checkpoint(dir.string() + "/", header, parameters_of(original));  // a trailing '/' is fine
    CHECK_FALSE(has_optimizer_state(dir.string()));
    CHECK(leftovers(dir).empty());

    const CheckpointHeader loaded = read_checkpoint_header(dir.string());
    for (const std::string& key : Config::keys()) CHECK(loaded.config.get(key) == config.get(key));
    CHECK(loaded.config.preset == config.preset);
    CHECK(loaded.src_vocabulary == header.src_vocabulary);
    CHECK(loaded.tgt_vocabulary == header.tgt_vocabulary);

    Transformer restored(loaded.config, 2);  // another seed: other weights until loaded
    restored.set_training(false);
    CHECK_FALSE((restored.forward(kSrc, kTgtIn) == expected));
    load_parameters(dir.string(), parameters_of(restored));
    CHECK((restored.forward(kSrc, kTgtIn) == expected));

    // Saving again replaces the checkpoint (and leaves nothing beside it).
    Transformer other(config, 3);
    save_checkpoint(dir.string(), header, parameters_of(other));
    load_parameters(dir.string(), parameters_of(restored));
    CHECK(values_of(parameters_of(restored)) == values_of(parameters_of(other)));
    CHECK(leftovers(dir).empty());
  }
}

TEST_CASE("Checkpoint: training resumed from a checkpoint equals uninterrupted training",
          "[checkpoint][adam]") {
  testing::TempDir tmp("checkpoint", "resume");
  const std::string dir = (tmp.path / "ckpt").string();
  Transformer uninterrupted(tiny_config(), 1);
  Adam uninterrupted_adam(parameters_of(uninterrupted));
  train(uninterrupted, uninterrupted_adam, 5);

  // Two steps, a checkpoint with the optimizer's state...
  Transformer first(tiny_config(), 1);
  Adam first_adam(parameters_of(first));
  train(first, first_adam, 2);
  save_checkpoint(dir, tiny_header(), parameters_of(first), &first_adam);
  REQUIRE(has_optimizer_state(dir));

  // ...then a fresh model and optimizer restored from it train three more.
  Transformer resumed(read_checkpoint_header(dir).config, 99);
  const ParameterList params = parameters_of(resumed);
  load_parameters(dir, params);
  Adam adam(params);
  load_optimizer_state(dir, params, adam);
  CHECK(adam.steps_taken() == 2);
  for (std::size_t i = 0; i < params.size(); ++i) {
    CHECK(adam.first_moment(i) == first_adam.first_moment(i));
    CHECK(adam.second_moment(i) == first_adam.second_moment(i));
  }
  train(resumed, adam, 3);
  CHECK(values_of(params) == values_of(parameters_of(uninterrupted)));  // every bit

  // The same weights with a fresh optimizer train differently: the moments and the step count
  // (Adam's bias correction) are what made the two runs equal.
  Transformer restarted(tiny_config(), 99);
  load_parameters(dir, parameters_of(restarted));
  Adam fresh(parameters_of(restarted));
  train(restarted, fresh, 3);
  CHECK(values_of(parameters_of(restarted)) != values_of(parameters_of(uninterrupted)));
}

TEST_CASE(
    "Checkpoint: averaging checkpoints gives the mean of their weights, or an error and no change",
    "[checkpoint]") {
  testing::TempDir tmp("checkpoint", "average");
  const std::vector<std::string> dirs = {(tmp.path / "a").string(), (tmp.path / "b").string(),
                                         (tmp.path / "c").string()};
  std::vector<std::vector<std::vector<float>>> saved;  // checkpoint -> parameter -> values
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    Transformer snapshot(tiny_config(), 10 + i);
    save_checkpoint(dirs[i], tiny_header(), parameters_of(snapshot));
    saved.push_back(values_of(parameters_of(snapshot)));
  }

  Transformer model(tiny_config(), 1);
  const ParameterList params = parameters_of(model);
  load_averaged_parameters(dirs, params);
  const std::vector<std::vector<float>> mean = values_of(params);
  for (std::size_t p = 0; p < mean.size(); ++p)
    for (std::size_t k = 0; k < mean[p].size(); ++k)
      REQUIRE(mean[p][k] ==
              Approx((saved[0][p][k] + saved[1][p][k] + saved[2][p][k]) / 3.0).margin(1e-7));
  // The order of the checkpoints does not matter, and the mean of one is the checkpoint itself.
  load_averaged_parameters({dirs[2], dirs[0], dirs[1]}, params);
  CHECK(values_of(params) == mean);
  load_averaged_parameters({dirs[1]}, params);
  CHECK(values_of(params) == saved[1]);

  // Snapshots of different networks cannot be averaged, even where every shape agrees
  // (n_heads changes none); a missing checkpoint is named. The model keeps its weights.
  Config other_heads = tiny_config();
  other_heads.n_heads = 1;
  Transformer other(other_heads, 4);
  CheckpointHeader other_header = tiny_header();
  other_header.config = other_heads;
  const std::string other_dir = (tmp.path / "other").string();
  save_checkpoint(other_dir, other_header, parameters_of(other));
  check_checkpoint_error(
      [&] {
        load_averaged_parameters({dirs[0], other_dir}, params);
      },
      {"cannot average", other_dir, "n_heads is 2 in one and 1 in the other"});
  check_checkpoint_error(
      [&] {
        load_averaged_parameters({dirs[0], (tmp.path / "none").string()}, params);
      },
      {"no checkpoint directory", "none"});
  check_checkpoint_error([&] { load_averaged_parameters({}, params); },
                         {"at least one checkpoint"});
  CHECK(values_of(params) == saved[1]);
}

TEST_CASE(
    "Checkpoint: a damaged checkpoint is an error naming the problem, and the model is untouched",
    "[checkpoint]") {
  testing::TempDir tmp("checkpoint", "damaged");
  const fs::path dir = tmp.path / "ckpt";
  const fs::path weights = dir / "parameters";
  const fs::path config_file = dir / "config.txt";
  Transformer saved(tiny_config(), 1);
  save_checkpoint(dir.string(), tiny_header(), parameters_of(saved));
  Transformer model(tiny_config(), 2);
  const ParameterList params = parameters_of(model);
  const std::vector<std::vector<float>> before = values_of(params);
  const auto load = [&] { load_parameters(dir.string(), params); };
  const auto read_header = [&] { read_checkpoint_header(dir.string()); };
  const std::string config_lines = "config.txt, line ";

  std::function<void()> action;   // the call that must fail...
  std::vector<std::string> says;  // ...and what its message must say
  SECTION("a parameter file truncated by 3 bytes") {
    const fs::path file = weights / "generator.weight.npy";
    fs::resize_file(file, fs::file_size(file) - 3);
    action = load;
    says = {file.string(), "truncated", "parameter 'generator.weight'"};
  }
  SECTION("a parameter of the wrong shape") {
    const std::vector<float> values(8 * 16, 0.5f);
    save_npy((weights / "encoder.layers.0.ffn.linear1.weight.npy").string(), values.data(),
             {8, 16});
    action = load;
    says = {"encoder.layers.0.ffn.linear1.weight", "shape [8, 16]", "the model's is [16, 8]"};
  }
  SECTION("a missing parameter") {
    fs::remove(weights / "decoder.layers.0.norm3.bias.npy");
    action = load;
    says = {"has no parameter 'decoder.layers.0.norm3.bias'"};
  }
  SECTION("an extra parameter (a checkpoint of a deeper model)") {
    const std::vector<float> values(8, 1.0f);
    save_npy((weights / "decoder.layers.1.norm1.bias.npy").string(), values.data(), {8});
    action = load;
    says = {"a parameter the model does not have", "decoder.layers.1.norm1.bias.npy"};
  }
  SECTION("a model of another configuration") {
    Config shared = tiny_config();
    shared.shared_embedding = true;
    shared.tgt_vocab_size = shared.src_vocab_size;
    auto other = std::make_shared<Transformer>(shared, 2);
    action = [&, other] { load_parameters(dir.string(), parameters_of(*other)); };
    says = {"has no parameter 'embedding.weight'", "another configuration"};
  }
  SECTION("an unknown config key") {
    std::ofstream(config_file, std::ios::app) << "colour=blue\n";
    action = read_header;
    // After "# preset", a line per key and the "# model as saved:" line.
    says = {config_lines + std::to_string(Config::keys().size() + 3),
            "unknown config key 'colour'"};
  }
  SECTION("a malformed config value") {
    replace_in_file(config_file, "d_model=8\n", "d_model=eight\n");
    action = read_header;
    says = {config_lines + "4", "d_model", "'eight'"};
  }
  SECTION("a config line that is not key=value") {
    replace_in_file(config_file, "d_ff=16\n", "d_ff 16\n");
    action = read_header;
    says = {config_lines + "8", "expected key=value", "'d_ff 16'"};
  }
  SECTION("a config line with a terminal escape is quoted with it shown, not sent raw") {
    replace_in_file(config_file, "d_ff=16\n", "\x1b[31md_ff 16\n");
    action = read_header;
    says = {config_lines + "8", "expected key=value", "'\\x1b[31md_ff 16'"};
  }
  SECTION("a config value with a control byte is quoted with it shown") {
    replace_in_file(config_file, "d_model=8\n", "d_model=8\x07\n");
    action = read_header;
    says = {config_lines + "4", "d_model", "'8\\x07'"};
  }
  SECTION("a missing config key") {
    replace_in_file(config_file, "n_heads=2\n", "");
    action = read_header;
    says = {"config.txt: missing key 'n_heads'"};
  }
  SECTION("a config key given twice") {
    std::ofstream(config_file, std::ios::app) << "d_model=16\n";
    action = read_header;
    says = {"key 'd_model' is set twice"};
  }
  SECTION("a vocabulary larger than the model's") {
    replace_in_file(config_file, "src_vocab_size=9\n", "src_vocab_size=7\n");
    replace_in_file(config_file, ": src_vocab_size=9 ", ": src_vocab_size=7 ");  // the record too
    action = read_header;
    says = {"the source vocabulary has 9 symbols but the model's src_vocab_size is 7"};
  }
  SECTION("a damaged vocabulary file") {
    replace_in_file(dir / "tgt_vocabulary.txt", "<eos>\n", "<end>\n");
    action = read_header;
    says = {"tgt_vocabulary.txt", "line 4", "<eos>"};
  }
  SECTION("a vocabulary that is not the task's") {
    const Vocabulary task(Tokenization::kWords, {"x", "y", "z", "w", "v", "t"});
    action = [&, task] {
      require_same_vocabulary(read_checkpoint_header(dir.string()).tgt_vocabulary, task, "target");
    };
    says = {"target vocabulary does not match", "id 9 is 'u' in the checkpoint but 't' here"};
  }
  SECTION("a NaN weight") {
    const fs::path file = weights / "generator.weight.npy";  // [10, 8]
    std::vector<float> values(80, 0.25f);
    values[1 * 8 + 2] = std::nanf("");
    save_npy(file.string(), values.data(), {10, 8});
    action = load;
    says = {file.string(), "holds NaN at index [1, 2] (value 11 of 80)",
            "parameter 'generator.weight'", "did training diverge"};
  }
  SECTION("an infinite weight") {
    const fs::path file = weights / "encoder.layers.0.norm1.bias.npy";  // [8]
    std::vector<float> values(8, 0.0f);
    values[7] = -std::numeric_limits<float>::infinity();
    save_npy(file.string(), values.data(), {8});
    action = load;
    says = {file.string(), "holds -inf at index [7]", "parameter 'encoder.layers.0.norm1.bias'"};
  }
  SECTION("n_heads edited and the '# model as saved:' line deleted, to hide it") {
    replace_in_file(config_file, "n_heads=2\n", "n_heads=8\n");
    std::string text = read_bytes(config_file);
    text.erase(text.find("# model as saved:"));
    std::ofstream(config_file, std::ios::trunc) << text;
    action = read_header;
    says = {"config.txt: no '# model as saved:' line", "was config.txt edited?"};
  }
  SECTION("n_heads edited: a valid value that changes no shape") {
    replace_in_file(config_file, "n_heads=2\n", "n_heads=8\n");
    action = read_header;
    const std::string record_line =
        std::to_string(Config::keys().size() + 2);  // "# preset", the keys
    says = {config_lines + "5: n_heads=8, but the checkpoint was saved with n_heads=2 (line " +
                record_line + ", '# model as saved:')",
            "n_heads changes no tensor's shape", "train a new one instead of editing config.txt"};
  }
  SECTION("max_len edited") {
    replace_in_file(config_file, "max_len=16\n", "max_len=32\n");
    action = read_header;
    says = {config_lines + "14: max_len=32, but the checkpoint was saved with max_len=16"};
  }
  SECTION("n_heads that does not divide d_model") {
    replace_in_file(config_file, "n_heads=2\n", "n_heads=3\n");
    action = read_header;
    says = {"config.txt: invalid config: d_model (8) must be divisible by n_heads (3)"};
  }
  SECTION("a learning rate of inf") {
    replace_in_file(config_file, "learning_rate=0.01\n", "learning_rate=inf\n");
    action = read_header;
    says = {config_lines + "18: config key 'learning_rate' needs a finite number, got 'inf'"};
  }
  SECTION("a dropout of nan") {
    replace_in_file(config_file, "dropout=0\n", "dropout=nan\n");
    action = read_header;
    says = {config_lines + "9: config key 'dropout' needs a finite number, got 'nan'"};
  }
  SECTION("a damaged '# model as saved' line") {
    replace_in_file(config_file, " n_heads=2", " n_heads");
    action = read_header;
    says = {
        config_lines + std::to_string(Config::keys().size() + 2) +
        ": the '# model as saved:' line has 'n_heads', expected each model key once as key=value"};
  }
  SECTION("d_model=4000000000, the record edited too") {
    replace_in_file(config_file, "d_model=8\n", "d_model=4000000000\n");
    replace_in_file(config_file, " d_model=8 ", " d_model=4000000000 ");
    action = read_header;
    says = {"config.txt': loading the checkpoint (d_model 4000000000", "needs about",
            "GiB (parameters", "but this machine has", "choose smaller sizes"};
  }
  SECTION("d_model=4000000000, the record left as it was") {
    replace_in_file(config_file, "d_model=8\n", "d_model=4000000000\n");
    action = read_header;
    says = {config_lines + "4: d_model=4000000000, but the checkpoint was saved with d_model=8"};
  }
  SECTION("a missing directory (header)") {
    action = [&] { read_checkpoint_header((tmp.path / "nowhere").string()); };
    says = {"no checkpoint directory", "nowhere"};
  }
  SECTION("a missing directory (parameters)") {
    action = [&] { load_parameters((tmp.path / "nowhere").string(), params); };
    says = {"no checkpoint directory", "nowhere"};
  }

  const auto damaged = snapshot(dir);
  check_checkpoint_error(action, says);
  CHECK(values_of(params) == before);  // nothing copied
  CHECK(snapshot(dir) == damaged);     // nothing written
}

TEST_CASE("Checkpoint: named extra files are saved and loaded with the model, byte for byte",
          "[checkpoint]") {
  testing::TempDir tmp("checkpoint", "files");
  Transformer model(tiny_config(), 3);
  const ParameterList params = parameters_of(model);
  CheckpointHeader header = tiny_header();
  const std::string binary("a\0b\xff\n", 5);  // any bytes: a zero byte, a high byte, a newline
  header.files = {{"tokenizer.model", binary}, {"notes.txt", "trained on the test corpus\n"}};
  const std::string dir = tmp.file("ckpt");
  save_checkpoint(dir, header, params);
  CHECK(read_checkpoint_header(dir).files == header.files);
  load_parameters(dir, params);  // files/ is no parameter: the weights load as before

  // A checkpoint without files/ (every one saved before they existed) has none.
  save_checkpoint(tmp.file("plain"), tiny_header(), params);
  CHECK_FALSE(fs::exists(fs::path(tmp.file("plain")) / "files"));
  CHECK(read_checkpoint_header(tmp.file("plain")).files.empty());

  // A name that is not a plain file name is refused before anything is written.
  for (const std::string& name :
       std::vector<std::string>{"", ".hidden", "a/b", std::string("a\0b", 3)}) {
    CheckpointHeader bad = tiny_header();
    bad.files = {{name, "x"}};
    check_checkpoint_error([&] { save_checkpoint(tmp.file("bad"), bad, params); },
                           {"cannot be a file name", "(nothing was written)"});
    CHECK_FALSE(fs::exists(tmp.file("bad")));
  }
  // What is not a plain file in files/ is refused when read, naming it.
  fs::create_directories(fs::path(dir) / "files" / "folder");
  check_checkpoint_error([&] { read_checkpoint_header(dir); }, {"folder", "is not an extra file"});
  fs::remove(fs::path(dir) / "files" / "folder");

  // Checkpoints with other extra files are not snapshots of one run: not averaged.
  CheckpointHeader other = header;
  other.files["notes.txt"] = "another run\n";
  save_checkpoint(tmp.file("other"), other, params);
  check_checkpoint_error(
      [&] {
        load_averaged_parameters({dir, tmp.file("other")}, params);
      },
      {"their extra files differ"});
}

TEST_CASE("Checkpoint: a checkpoint older than a training key loads with Config's default",
          "[checkpoint]") {
  testing::TempDir tmp("checkpoint", "older");
  const fs::path dir = tmp.path / "ckpt";
  CheckpointHeader header = tiny_header();
  header.config.clip_norm = 5.0f;
  Transformer model(header.config, 1);
  save_checkpoint(dir.string(), header, parameters_of(model));
  CHECK(read_checkpoint_header(dir.string()).config.clip_norm == 5.0f);
  replace_in_file(dir / "config.txt", "clip_norm=5\n", "");
  CHECK(read_checkpoint_header(dir.string()).config.clip_norm == Config().clip_norm);
}

TEST_CASE("Checkpoint: a vocabulary mismatch names the first difference", "[checkpoint]") {
  const Vocabulary saved = tiny_header().src_vocabulary;  // <pad> <bos> <eos> <unk> a b c ' ' é
  CHECK_NOTHROW(require_same_vocabulary(saved, saved, "source"));
  const auto mismatch = [&](const Vocabulary& task) {
    return [&saved, task] { require_same_vocabulary(saved, task, "source"); };
  };
  check_checkpoint_error(
      mismatch(Vocabulary(Tokenization::kCharacters, {"a", "c", "b", " ", "\u00e9"})),
      {"source vocabulary does not match", "id 5 is 'b' in the checkpoint but 'c' here"});
  check_checkpoint_error(
      mismatch(Vocabulary(Tokenization::kCharacters, {"a", "b", "c", " ", "\u00e9", "d"})),
      {"sizes differ: 9 in the checkpoint vs 10 here"});
  check_checkpoint_error(mismatch(Vocabulary(Tokenization::kWords, {"a", "b", "c", "d", "\u00e9"})),
                         {"one splits characters, the other words"});
}

TEST_CASE("Checkpoint: a damaged optimizer state is an error, and the optimizer is untouched",
          "[checkpoint][adam]") {
  testing::TempDir tmp("checkpoint", "optimizer");
  const fs::path dir = tmp.path / "ckpt";
  const fs::path state = dir / "optimizer";
  Transformer trained(tiny_config(), 1);
  Adam trained_adam(parameters_of(trained));
  train(trained, trained_adam, 1);
  save_checkpoint(dir.string(), tiny_header(), parameters_of(trained), &trained_adam);

  Transformer model(tiny_config(), 1);
  const ParameterList params = parameters_of(model);
  Adam adam(params);
  std::vector<std::string> says;
  SECTION("no optimizer state") {
    save_checkpoint(dir.string(), tiny_header(), parameters_of(trained));
    says = {"holds no optimizer state"};
  }
  SECTION("a truncated moment") {
    const fs::path file = state / "generator.weight.v.npy";
    fs::resize_file(file, fs::file_size(file) - 4);
    says = {file.string(), "truncated", "the second moment of 'generator.weight'"};
  }
  SECTION("a missing moment") {
    fs::remove(state / "encoder.layers.0.norm1.bias.m.npy");
    says = {"encoder.layers.0.norm1.bias.m.npy", "cannot be opened",
            "the first moment of 'encoder.layers.0.norm1.bias'"};
  }
  SECTION("a bad step count") {
    std::ofstream(state / "state.txt", std::ios::trunc) << "steps=-1\n";
    says = {"state.txt", "expected 'steps=N'", "'steps=-1'"};
  }
  SECTION("an absurd step count") {
    std::ofstream(state / "state.txt", std::ios::trunc) << "steps=999999999999999999\n";
    says = {
        "state.txt': steps=999999999999999999 is more than any run could have taken (at most "
        "1000000000000)"};
  }
  SECTION("a negative second moment") {
    const fs::path file = state / "generator.weight.v.npy";  // [10, 8]
    std::vector<float> values(80, 1e-6f);
    values[3 * 8 + 1] = -0.5f;
    save_npy(file.string(), values.data(), {10, 8});
    says = {file.string(), "holds -0.500000 at index [3, 1]",
            "the second moment of 'generator.weight'", "never negative"};
  }
  SECTION("a NaN first moment") {
    const fs::path file = state / "decoder.layers.0.ffn.linear2.bias.m.npy";  // [8]
    std::vector<float> values(8, 0.0f);
    values[0] = std::nanf("");
    save_npy(file.string(), values.data(), {8});
    says = {file.string(), "holds NaN at index [0]",
            "the first moment of 'decoder.layers.0.ffn.linear2.bias'"};
  }
  SECTION("an infinite second moment") {
    const fs::path file = state / "src_embedding.weight.v.npy";  // [9, 8]
    std::vector<float> values(72, 0.0f);
    values[71] = std::numeric_limits<float>::infinity();
    save_npy(file.string(), values.data(), {9, 8});
    says = {file.string(), "holds +inf at index [8, 7]",
            "the second moment of 'src_embedding.weight'"};
  }
  check_checkpoint_error([&] { load_optimizer_state(dir.string(), params, adam); }, says);
  CHECK(adam.steps_taken() == 0);
  for (std::size_t i = 0; i < params.size(); ++i)
    CHECK(adam.first_moment(i) == std::vector<float>(params.refs()[i].size, 0.0f));
}

TEST_CASE("Checkpoint: an optimizer state from another run is refused",
          "[checkpoint][adam][bad-input]") {
  testing::TempDir tmp("checkpoint", "other_run");
  const auto trained_checkpoint = [&](const std::string& name, std::uint64_t seed, int steps) {
    Transformer model(tiny_config(), seed);
    Adam adam(parameters_of(model));
    train(model, adam, steps);
    save_checkpoint(tmp.file(name), tiny_header(), parameters_of(model), &adam);
  };
  trained_checkpoint("twenty", 1, 20);
  trained_checkpoint("three", 2, 3);
  // The same shapes: only the fingerprint of the weights tells them apart.
  fs::remove_all(tmp.path / "twenty" / "optimizer");
  fs::copy(tmp.path / "three" / "optimizer", tmp.path / "twenty" / "optimizer",
           fs::copy_options::recursive);
  Transformer model(tiny_config(), 1);
  const ParameterList params = parameters_of(model);
  load_parameters(tmp.file("twenty"), params);
  Adam adam(params);
  check_checkpoint_error(
      [&] { load_optimizer_state(tmp.file("twenty"), params, adam); },
      {"optimizer/state.txt' was saved with other weights than these", "from another run?"});
  CHECK(adam.steps_taken() == 0);
  load_parameters(tmp.file("three"), params);  // its own weights: fine
  load_optimizer_state(tmp.file("three"), params, adam);
  CHECK(adam.steps_taken() == 3);
}

TEST_CASE("Checkpoint: a file that is a pipe or a device is refused, not read forever",
          "[checkpoint][bad-input]") {
  testing::TempDir tmp("checkpoint", "special");
  Transformer model(tiny_config(), 1);
  const ParameterList params = parameters_of(model);
  Adam adam(params);
  const fs::path dir = tmp.path / "ckpt";
  save_checkpoint(dir.string(), tiny_header(), params, &adam);
  SECTION("config.txt is a pipe") {
    fs::remove(dir / "config.txt");
    REQUIRE(::mkfifo((dir / "config.txt").c_str(), 0600) == 0);
    check_checkpoint_error([&] { read_checkpoint_header(dir.string()); },
                           {"config.txt'", "not a regular file"});
  }
  SECTION("a vocabulary is a link to /dev/zero") {
    fs::remove(dir / "src_vocabulary.txt");
    fs::create_symlink("/dev/zero", dir / "src_vocabulary.txt");
    check_checkpoint_error([&] { read_checkpoint_header(dir.string()); },
                           {"vocabulary file", "src_vocabulary.txt'", "not a regular file"});
  }
  SECTION("a parameter is a pipe") {
    const fs::path file = dir / "parameters" / "generator.bias.npy";
    fs::remove(file);
    REQUIRE(::mkfifo(file.c_str(), 0600) == 0);
    check_checkpoint_error([&] { load_parameters(dir.string(), params); },
                           {"generator.bias.npy", "not a regular file"});
  }
  SECTION("optimizer/state.txt is a link to /dev/zero") {
    fs::remove(dir / "optimizer" / "state.txt");
    fs::create_symlink("/dev/zero", dir / "optimizer" / "state.txt");
    CHECK(has_optimizer_state(dir.string()));  // there, so that loading says what is wrong with it
    check_checkpoint_error([&] { load_optimizer_state(dir.string(), params, adam); },
                           {"optimizer state", "not a regular file"});
  }
}

TEST_CASE("Checkpoint: a loaded model's architecture cannot be changed with --set",
          "[checkpoint][bad-input]") {
  const auto command_line = [](std::vector<const char*> args) {
    CommandLine cli("test", "");
    cli.config_options("tiny");
    args.insert(args.begin(), "test");
    cli.parse(static_cast<int>(args.size()), args.data());
    return cli;
  };
  const Config saved = tiny_config();
  CHECK_THROWS_WITH(
      require_same_architecture(command_line({"--set", "n_heads=4"}), "ck", saved),
      "--set n_heads=4: the model loaded from 'ck' has n_heads=" + saved.get("n_heads") +
          ", and its weights fit only that; train a new model to change it");
  CHECK_THROWS_AS(require_same_architecture(command_line({"--set", "d_model=16"}), "ck", saved),
                  UsageError);
  CHECK_THROWS_AS(require_same_architecture(command_line({"--set", "max_len=99"}), "ck", saved),
                  UsageError);
  // Training keys may change for a resumed run.
  CHECK_NOTHROW(require_same_architecture(
      command_line({"--set", "learning_rate=1e-4", "--set", "dropout=0.2"}), "ck", saved));
}

TEST_CASE("Checkpoint: a save that fails leaves the previous checkpoint byte-identical",
          "[checkpoint]") {
  testing::TempDir tmp("checkpoint", "atomic");
  const fs::path dir = tmp.path / "ckpt";
  Transformer old_model(tiny_config(), 1);
  save_checkpoint(dir.string(), tiny_header(), parameters_of(old_model));
  const auto previous = snapshot(dir);

  Transformer new_model(tiny_config(), 2);
  CheckpointHeader header = tiny_header();
  ParameterList params = parameters_of(new_model);
  std::optional<rlim_t> file_size_cap;
  Param<1> stray = Param<1>::zeros({4});
  std::unique_ptr<Transformer> other_model;
  std::optional<Adam> optimizer;
  std::vector<std::string> says;
  SECTION("the disk fills up halfway through the parameter files") {
    // Cap file sizes just below the largest parameter file: config.txt, the vocabularies and
    // the smaller parameter files (the embeddings come first) are written, then a write fails.
    std::uintmax_t largest = 0, smaller = 0;
    for (const auto& entry : fs::directory_iterator(dir / "parameters"))
      largest = std::max(largest, entry.file_size());
    for (const auto& entry : fs::directory_iterator(dir / "parameters"))
      smaller += entry.file_size() < largest;
    REQUIRE(smaller > 0);
    REQUIRE(fs::file_size(dir / "config.txt") < largest);
    REQUIRE(fs::file_size(dir / "parameters" / "src_embedding.weight.npy") < largest);
    file_size_cap = static_cast<rlim_t>(largest - 1);
    says = {"could not be written completely", "the previous checkpoint is intact"};
  }
  SECTION("a parameter name that is not a file name") {
    params.add("encoder/stray.weight", stray);
    says = {"'encoder/stray.weight' cannot be a file name", "nothing was written"};
  }
  SECTION("a configuration the reader would refuse") {
    header.config.n_heads = 3;
    says = {"d_model (8) must be divisible by n_heads (3)", "nothing was written"};
  }
  SECTION("a vocabulary larger than the model's") {
    header.config.tgt_vocab_size = 8;
    says = {"the target vocabulary has 10 symbols but the model's tgt_vocab_size is 8"};
  }
  SECTION("an optimizer built on other parameters") {
    Config other = tiny_config();
    other.d_ff = 32;
    other_model = std::make_unique<Transformer>(other, 3);
    optimizer.emplace(parameters_of(*other_model));
    says = {"the optimizer was not built on these parameters"};
  }
  check_checkpoint_error(
      [&] {
        std::optional<FileSizeLimit>
            limit;  // only while saving: the test's own output is never capped
        if (file_size_cap) limit.emplace(*file_size_cap);
        save_checkpoint(dir.string(), header, params, optimizer ? &*optimizer : nullptr);
      },
      says);
  CHECK(snapshot(dir) == previous);
  CHECK(leftovers(dir).empty());
}

TEST_CASE("Checkpoint: a save never replaces what is not a checkpoint", "[checkpoint]") {
  testing::TempDir tmp("checkpoint", "refuse");
  Transformer model(tiny_config(), 1);
  const ParameterList params = parameters_of(model);

  const fs::path results = tmp.path / "results";  // a folder of something else
  fs::create_directories(results);
  std::ofstream(results / "notes.txt") << "precious";
  check_checkpoint_error([&] { save_checkpoint(results.string(), tiny_header(), params); },
                         {"holds no checkpoint (no config.txt)", "nothing was written"});
  CHECK(read_bytes(results / "notes.txt") == "precious");

  const fs::path file = tmp.path / "model.bin";  // a file
  std::ofstream(file) << "precious";
  check_checkpoint_error([&] { save_checkpoint(file.string(), tiny_header(), params); },
                         {"exists and is not a directory"});
  CHECK(read_bytes(file) == "precious");

  // A regular file where the folder that holds the checkpoint must be: refused before writing.
  check_checkpoint_error([&] { save_checkpoint((file / "ckpt").string(), tiny_header(), params); },
                         {"its parent", "is not a directory", "nothing was written"});
  CHECK(read_bytes(file) == "precious");
  CHECK(leftovers(file).empty());
}

TEST_CASE("Checkpoint: a save never deletes what it did not write", "[checkpoint][bad-input]") {
  testing::TempDir tmp("checkpoint", "foreign");
  Transformer model(tiny_config(), 1);
  const ParameterList params = parameters_of(model);
  const fs::path dir = tmp.path / "model";
  save_checkpoint(dir.string(), tiny_header(), params);
  // The user's own notes and results, kept inside the checkpoint.
  std::ofstream(dir / "NOTES.md") << "precious";
  fs::create_directories(dir / "eval");
  std::ofstream(dir / "my_backup.npy") << "precious";
  check_checkpoint_error(
      [&] { save_checkpoint(dir.string(), tiny_header(), params); },
      {"it holds 'NOTES.md', 'eval', 'my_backup.npy', which a checkpoint does not have",
       "move them out first", "nothing was written"});
  check_checkpoint_error([&] { check_checkpoint_destination(dir.string()); }, {"'NOTES.md'"});
  CHECK(read_bytes(dir / "NOTES.md") == "precious");
  CHECK(read_bytes(dir / "my_backup.npy") == "precious");
  CHECK(fs::is_directory(dir / "eval"));

  // A symbolic link to a checkpoint: the swap would replace the link, not the folder it names.
  fs::remove(dir / "NOTES.md");
  fs::remove(dir / "my_backup.npy");
  fs::remove(dir / "eval");
  fs::create_directory_symlink(dir, tmp.path / "link");
  check_checkpoint_error(
      [&] { save_checkpoint(tmp.file("link"), tiny_header(), params); },
      {"it is a symbolic link to '" + dir.string() + "'", "give the directory itself"});
  CHECK(fs::is_symlink(tmp.path / "link"));
  CHECK_NOTHROW(save_checkpoint(dir.string(), tiny_header(), params));  // the real folder is fine
}

TEST_CASE("Checkpoint: a destination is checked before training, as save_checkpoint would",
          "[checkpoint][bad-input]") {
  testing::TempDir tmp("checkpoint", "destination");
  CHECK_NOTHROW(check_checkpoint_destination(tmp.file("new")));  // a new name
  fs::create_directories(tmp.path / "empty");
  CHECK_NOTHROW(check_checkpoint_destination(tmp.file("empty")));  // an empty folder
  std::ofstream(tmp.path / "file") << "precious";
  check_checkpoint_error([&] { check_checkpoint_destination(tmp.file("file")); },
                         {"cannot save a checkpoint to", "exists and is not a directory"});
  check_checkpoint_error([&] { check_checkpoint_destination(tmp.file("file") + "/ckpt"); },
                         {"its parent", "is not a directory"});
  check_checkpoint_error([&] { check_checkpoint_destination(tmp.file("missing") + "/ckpt"); },
                         {"its parent", "is not a directory"});
  CHECK(read_bytes(tmp.path / "file") == "precious");
}

TEST_CASE("Checkpoint: a save that fails at the end of training is rescued, not lost",
          "[checkpoint][bad-input]") {
  testing::TempDir tmp("checkpoint", "rescue");
  Transformer model(tiny_config(), 1);
  const ParameterList params = parameters_of(model);
  std::ofstream(tmp.path / "file") << "precious";
  const std::string rescue = tmp.file("rescued");
  // The destination became impossible after it was checked (here: its parent is a file).
  check_checkpoint_error(
      [&] {
        save_checkpoint_or_rescue(tmp.file("file") + "/ckpt", {rescue}, tiny_header(), params);
      },
      {"is not a directory", "the model was saved to '" + rescue + "' instead"});
  Transformer restored(read_checkpoint_header(rescue).config, 2);
  load_parameters(rescue, parameters_of(restored));
  CHECK(values_of(parameters_of(restored)) == values_of(params));
  // Where the rescue fails too, both failures are named.
  check_checkpoint_error(
      [&] {
        save_checkpoint_or_rescue(tmp.file("file") + "/a", {tmp.file("file") + "/b"}, tiny_header(),
                                  params);
      },
      {"instead failed too"});
}

namespace {

// The pid of a process that has ended: a child that exits at once, waited for. (The kernel
// hands pids out in increasing order, so it is not reused within a test.)
pid_t dead_pid() {
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) ::_exit(0);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  return child;
}

}  // namespace

TEST_CASE("Checkpoint: a save removes what saves killed earlier left, and nothing else",
          "[checkpoint][bad-input]") {
  testing::TempDir tmp("checkpoint", "leftovers");
  const fs::path dir = tmp.path / "ckpt";
  Transformer model(tiny_config(), 1);
  const ParameterList params = parameters_of(model);
  save_checkpoint(dir.string(), tiny_header(), params);

  const std::string dead = std::to_string(dead_pid());
  const std::string alive = std::to_string(::getpid());
  const auto make_dir = [&](const std::string& name) {
    fs::create_directories(tmp.path / name / "parameters");
    std::ofstream(tmp.path / name / "config.txt") << "# preset tiny\n";
    return tmp.path / name;
  };
  // What a run killed during a save leaves: removed, beside this checkpoint and beside the
  // other checkpoints in place in the same folder (--save-every's DIR-step<S>, a dotted name).
  const fs::path staging = make_dir("ckpt.saving." + dead + ".0");
  const fs::path previous = make_dir("ckpt.previous." + dead + ".12");
  save_checkpoint((tmp.path / "ckpt-step4").string(), tiny_header(), params);
  save_checkpoint((tmp.path / "my.ckpt").string(), tiny_header(), params);
  const fs::path step_staging = make_dir("ckpt-step4.saving." + dead + ".3");
  const fs::path dotted_previous = make_dir("my.ckpt.previous." + dead + ".1");
  // What must stay: a live process's save, names that are not exactly the pattern, another
  // checkpoint's leftovers (ckpt2 and other are not in place), a folder holding a file no save
  // writes, a file, and a symbolic link (not followed, not removed).
  const std::vector<fs::path> kept = {
      make_dir("ckpt.saving." + alive + ".0"),    make_dir("ckpt.saving." + dead + ".x"),
      make_dir("ckpt.saving." + dead + ".0.bak"), make_dir("ckpt.saving." + dead),
      make_dir("ckpt.saved." + dead + ".0"),      make_dir("ckpt.saving.-" + dead + ".0"),
      make_dir("ckpt2.saving." + dead + ".0"),    make_dir("other.previous." + dead + ".0"),
      make_dir("ckpt.saving." + dead + ".5")};
  std::ofstream(kept.back() / "notes.txt") << "not a file a save writes";
  std::ofstream(tmp.path / ("ckpt.saving." + dead + ".7")) << "a file";
  const fs::path precious = make_dir("precious");
  fs::create_directory_symlink(precious, tmp.path / ("ckpt.previous." + dead + ".8"));

  save_checkpoint(dir.string(), tiny_header(), params);
  CHECK_FALSE(fs::exists(staging));
  CHECK_FALSE(fs::exists(previous));
  CHECK_FALSE(fs::exists(step_staging));
  CHECK_FALSE(fs::exists(dotted_previous));
  for (const fs::path& path : kept) CHECK(fs::is_directory(path));
  CHECK(fs::is_regular_file(tmp.path / ("ckpt.saving." + dead + ".7")));
  CHECK(fs::is_symlink(tmp.path / ("ckpt.previous." + dead + ".8")));
  CHECK(fs::exists(precious / "config.txt"));
  CHECK_NOTHROW(read_checkpoint_header(dir.string()));

  // remove_dead_leftovers() alone, as a program may call it at start: the same rule.
  make_dir("ckpt.saving." + dead + ".1");
  CHECK(remove_dead_leftovers(dir.string()) ==
        std::vector<std::string>{(tmp.path / ("ckpt.saving." + dead + ".1")).string()});
}

TEST_CASE(
    "Checkpoint: without a checkpoint in place, an old copy a killed save left is kept and pointed "
    "at",
    "[checkpoint][bad-input]") {
  // Killed between the two renames of the swap: DIR is gone, DIR.previous.<pid>.<n> is the
  // checkpoint. Nothing may delete it, and reading DIR says where it is.
  testing::TempDir tmp("checkpoint", "killed_swap");
  const fs::path dir = tmp.path / "ckpt";
  Transformer model(tiny_config(), 1);
  save_checkpoint(dir.string(), tiny_header(), parameters_of(model));
  const fs::path previous = tmp.path / ("ckpt.previous." + std::to_string(dead_pid()) + ".0");
  fs::rename(dir, previous);

  CHECK(remove_dead_leftovers(dir.string()).empty());
  CHECK(fs::exists(previous / "config.txt"));
  check_checkpoint_error(
      [&] { read_checkpoint_header(dir.string()); },
      {"no checkpoint directory '" + dir.string() + "'", previous.string(),
       "holds the checkpoint that a save killed halfway left behind", "rename it to"});
  // A new save puts a checkpoint in place, and only then is the old copy clutter.
  save_checkpoint(dir.string(), tiny_header(), parameters_of(model));
  CHECK_FALSE(fs::exists(previous));
}

TEST_CASE("Checkpoint: config.txt records the model keys as saved", "[checkpoint]") {
  testing::TempDir tmp("checkpoint", "record");
  Transformer model(tiny_config(), 1);
  save_checkpoint((tmp.path / "ckpt").string(), tiny_header(), parameters_of(model));
  CHECK_THAT(read_bytes(tmp.path / "ckpt" / "config.txt"),
             Contains("\n# model as saved: src_vocab_size=9 tgt_vocab_size=10 d_model=8 n_heads=2 "
                      "n_encoder_layers=1 "
                      "n_decoder_layers=1 d_ff=16 attention_bias=1 linear_bias=1 "
                      "shared_embedding=0 max_len=16\n"));
  // parse_checkpoint_config is the same reader on text: a training key may change, a model key not.
  const std::string text = read_bytes(tmp.path / "ckpt" / "config.txt");
  std::string edited = text;
  edited.replace(edited.find("batch_size=2"), 12, "batch_size=5");
  CHECK(parse_checkpoint_config(edited, "c.txt").batch_size == 5);
  // "# preset", a line per key, the record: the next line is keys + 3.
  const std::string record = std::to_string(Config::keys().size() + 2);
  const std::string next = std::to_string(Config::keys().size() + 3);
  check_checkpoint_error([&] { parse_checkpoint_config(text + "d_ff=16\n", "c.txt"); },
                         {"c.txt, line " + next, "set twice"});
  check_checkpoint_error(
      [&] { parse_checkpoint_config(text + "# model as saved: d_ff=16\n", "c.txt"); },
      {"c.txt, line " + next + ": a second '# model as saved:' line (the first is line " + record +
       ")"});
}

TEST_CASE("Checkpoint: a checkpoint exported from PyTorch gives PyTorch's logits",
          "[checkpoint][parity]") {
  // tests/fixtures/make_checkpoint_fixtures.py wrote it with tools/checkpoint_interop.py export.
  const fs::path dir = testing::fixture_path("checkpoint/pytorch_tiny");
  const CheckpointHeader header = read_checkpoint_header(dir.string());
  CHECK(header.config.d_model == 8);
  CHECK(header.config.n_encoder_layers == 2);
  CHECK(header.config.n_decoder_layers == 1);
  CHECK(header.config.attention_bias);
  CHECK_FALSE(header.config.linear_bias);
  CHECK(header.config.dropout == 0.1f);
  CHECK(header.config.learning_rate == 5e-4f);
  // Python wrote the vocabulary files; their escapes must be the ones Vocabulary::load reads.
  CHECK(header.src_vocabulary ==
        Vocabulary(Tokenization::kCharacters, {"a", "b", "c", " ", "\\", "\u00e9", "\t"}));
  CHECK(header.tgt_vocabulary ==
        Vocabulary(Tokenization::kWords, {"one", "two", "three", "vier", "f\u00fcnf", "back\\slash",
                                          "six", "seven", "eight"}));

  Transformer model(header.config, 0);
  model.set_training(false);
  const ParameterList params = parameters_of(model);
  load_parameters(dir.string(), params);
  const Tensor3 logits = model.forward(fixture_ids("checkpoint/pytorch_tiny_src"),
                                       fixture_ids("checkpoint/pytorch_tiny_tgt_in"));
  // PyTorch computed the logits in float64 from the same float32 weights.
  const double error = testing::max_relative_error(
      logits, testing::load_fixture<3>("checkpoint/pytorch_tiny_logits"));
  INFO("max relative error " << error);
  CHECK(error < 1e-5);

  // The C++ writer reproduces the exported checkpoint: every line of config.txt (C++ may know
  // keys newer than the fixture), the vocabularies byte for byte, and the same parameter files
  // holding the same bits. (What C++ writes, PyTorch reads.)
  testing::TempDir tmp("checkpoint", "pytorch");
  const fs::path again = tmp.path / "ckpt";
  save_checkpoint(again.string(), header, params);
  std::ifstream exported_config(dir / "config.txt");
  const std::string ours = read_bytes(again / "config.txt");
  for (std::string line; std::getline(exported_config, line);)
    CHECK_THAT(ours, Contains(line + "\n"));
  for (const char* name : {"src_vocabulary.txt", "tgt_vocabulary.txt"})
    CHECK(read_bytes(again / name) == read_bytes(dir / name));
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir / "parameters")) {
    const NpyArray exported = load_npy_file(entry.path().string());
    const NpyArray ours = load_npy_file((again / "parameters" / entry.path().filename()).string());
    CHECK(ours.shape == exported.shape);
    CHECK(ours.values == exported.values);
    ++files;
  }
  CHECK(files == params.size());
}

TEST_CASE("Checkpoint: a name with no room for the names a save writes beside it is refused",
          "[checkpoint][bad-input]") {
  testing::TempDir tmp("checkpoint", "long_name");
  // 255 bytes is the most ext4, tmpfs and most file systems allow in one name.
  const std::string name230(230, 'm'), name210(210, 'm');
  check_checkpoint_error(
      [&] { check_checkpoint_destination(tmp.file(name230)); },
      {"its name is 230 bytes long", "NAME.previous.<pid>.<n>", "use a name of at most 224 bytes"});
  CHECK_NOTHROW(check_checkpoint_destination(tmp.file(name210)));
  // With --save-every, DIR-step<S> must fit too.
  check_checkpoint_error([&] { check_checkpoint_destination(tmp.file(name210), true); },
                         {"its name is 210 bytes long", "use a name of at most 199 bytes"});
  // A save that fails on the name is the program's own error, not a raw filesystem_error.
  Transformer model(tiny_config(), 1);
  check_checkpoint_error(
      [&] { save_checkpoint(tmp.file(name230), tiny_header(), parameters_of(model)); },
      {"cannot save the checkpoint", "230 bytes long", "(nothing was written)"});
}

TEST_CASE("Checkpoint: the rescue places never depend on a usable TMPDIR",
          "[checkpoint][bad-input]") {
  testing::TempDir tmp("checkpoint", "tmpdir");
  const char* saved = std::getenv("TMPDIR");
  const std::string previous = saved ? saved : "";
  std::ofstream(tmp.path / "file") << "x";
  for (const std::string& bad : {std::string("/nonexistent"), std::string(""), tmp.file("file")}) {
    ::setenv("TMPDIR", bad.c_str(), 1);
    CHECK(rescue_places("p-rescued-1") ==
          std::vector<std::string>{"/tmp/p-rescued-1", "p-rescued-1"});
  }
  ::setenv("TMPDIR", (tmp.path.string() + "/").c_str(), 1);
  CHECK(rescue_places("x").front() == tmp.file("x"));
  if (saved)
    ::setenv("TMPDIR", previous.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
}

TEST_CASE("Checkpoint: an optimizer folder without its state is damaged, not 'weights only'",
          "[checkpoint][bad-input]") {
  testing::TempDir tmp("checkpoint", "optimizer_folder");
  Transformer model(tiny_config(), 1);
  const ParameterList params = parameters_of(model);
  Adam adam(params);
  const std::string dir = tmp.file("ckpt");
  save_checkpoint(dir, tiny_header(), params, &adam);
  CHECK(has_optimizer_state(dir));
  fs::remove(fs::path(dir) / "optimizer" / "state.txt");
  check_checkpoint_error([&] { has_optimizer_state(dir); },
                         {"optimizer' without its state.txt", "its optimizer state is damaged"});
  fs::remove_all(fs::path(dir) / "optimizer");
  CHECK_FALSE(has_optimizer_state(dir));  // weights only: a checkpoint may be saved so
  std::ofstream(fs::path(dir) / "optimizer") << "";
  check_checkpoint_error([&] { has_optimizer_state(dir); }, {"which is not a directory"});
}

TEST_CASE("Checkpoint: snapshots of two training runs are not averaged unless forced",
          "[checkpoint][bad-input]") {
  testing::TempDir tmp("checkpoint", "average_runs");
  std::vector<std::string> dirs;
  for (const char* run : {"00000000000000aa", "00000000000000aa", "00000000000000bb"}) {
    Transformer snapshot(tiny_config(), 10 + dirs.size());
    CheckpointHeader header = tiny_header();
    header.run = run;
    dirs.push_back(tmp.file("c" + std::to_string(dirs.size())));
    save_checkpoint(dirs.back(), header, parameters_of(snapshot));
    CHECK(read_checkpoint_header(dirs.back()).run == run);  // "# run ID" in config.txt
  }
  Transformer model(tiny_config(), 1);
  const ParameterList params = parameters_of(model);
  CHECK_NOTHROW(load_averaged_parameters({dirs[0], dirs[1]}, params));  // one run
  const std::vector<std::vector<float>> one_run = values_of(params);
  check_checkpoint_error(
      [&] {
        load_averaged_parameters({dirs[0], dirs[2]}, params);
      },
      {"they come from different training runs (run 00000000000000aa and run "
       "00000000000000bb)",
       "--force-average"});
  CHECK(values_of(params) == one_run);  // untouched
  CHECK_NOTHROW(load_averaged_parameters({dirs[0], dirs[2]}, params, /*mixed=*/true));
  // Without a record of the run (older checkpoints), every setting must agree, the seed too.
  CheckpointHeader seeded = tiny_header();
  seeded.config.seed = 7;
  Transformer other(tiny_config(), 3);
  save_checkpoint(tmp.file("seed7"), seeded, parameters_of(other));
  save_checkpoint(tmp.file("seed1"), tiny_header(), parameters_of(other));
  check_checkpoint_error(
      [&] {
        load_averaged_parameters({tmp.file("seed1"), tmp.file("seed7")}, params);
      },
      {"seed is 1 in one and 7 in the other"});
}

TEST_CASE("Checkpoint: a reader never loads a mixture of two checkpoints saved meanwhile",
          "[checkpoint][bad-input]") {
  testing::TempDir tmp("checkpoint", "mixture");
  const std::string dir = tmp.file("ckpt");
  // Two versions whose every weight is 1, or every weight is 2; a writer swaps them in turn.
  Transformer ones(tiny_config(), 1), twos(tiny_config(), 1);
  for (const ParameterRef& p : parameters_of(ones)) std::fill(p.value, p.value + p.size, 1.0f);
  for (const ParameterRef& p : parameters_of(twos)) std::fill(p.value, p.value + p.size, 2.0f);
  save_checkpoint(dir, tiny_header(), parameters_of(ones));
  const pid_t writer = ::fork();
  REQUIRE(writer >= 0);
  if (writer == 0) {  // the other process: save, save, save
    for (int i = 0; i < 60; ++i)
      save_checkpoint(dir, tiny_header(), parameters_of(i % 2 ? ones : twos));
    ::_exit(0);
  }
  Transformer model(tiny_config(), 5);
  const ParameterList params = parameters_of(model);
  int loads = 0, errors = 0;
  for (int status = 0; ::waitpid(writer, &status, WNOHANG) == 0; ++loads) {
    try {
      load_parameters(dir, params);
    } catch (const CheckpointError&) {  // e.g. "replaced 5 times": an error, never a mixture
      ++errors;
      continue;
    }
    const float first = params.begin()->value[0];
    for (const ParameterRef& p : params)
      for (std::size_t k = 0; k < p.size; ++k) REQUIRE(p.value[k] == first);
  }
  INFO(loads << " loads, " << errors << " errors");
  CHECK(loads > 0);
}
