// The losses a checkpoint remembers (tfm/machinery/loss_history.hpp): written and read back exactly,
// a malformed file refused with its line, and a resumed run's losses joined to the saved ones.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "tfm/machinery/loss_history.hpp"

using namespace tfm;

namespace {

TrainingHistory history(std::vector<std::size_t> steps, std::vector<std::size_t> eval_steps) {
  TrainingHistory h;
  for (std::size_t s : steps) {
    h.steps.push_back(s);
    h.train_loss.push_back(1.0 / static_cast<double>(s) + 0.123456789);
  }
  for (std::size_t s : eval_steps) {
    h.eval_steps.push_back(s);
    h.held_out_loss.push_back(2.0 / static_cast<double>(s));
  }
  return h;
}

std::string message_of(const std::string& text) {
  try {
    parse_loss_history(text, "h.tsv");
  } catch (const CheckpointError& e) {
    return e.what();
  }
  return "(no error)";
}

const std::string kHeader = "# tfm loss history v1: kind, step, loss\n";

CheckpointHeader header_without_files() {
  const Vocabulary letters(Tokenization::kCharacters, {"a", "b"});
  return {Config{}, letters, letters};
}

}  // namespace

TEST_CASE("a loss history reads back as it was written", "[loss_history]") {
  const TrainingHistory written = history({1, 2, 3}, {2, 3});
  const TrainingHistory read = parse_loss_history(loss_history_text(written), "h.tsv");
  CHECK(read.steps == written.steps);
  CHECK(read.eval_steps == written.eval_steps);
  REQUIRE(read.train_loss.size() == 3);
  for (std::size_t i = 0; i < 3; ++i)  // nine digits: a float's loss to its last bit
    CHECK(static_cast<float>(read.train_loss[i]) == static_cast<float>(written.train_loss[i]));
  CHECK(read.held_out_loss.size() == 2);
}

TEST_CASE("a malformed loss history names its line", "[loss_history]") {
  CHECK(message_of("") == "h.tsv is empty (expected '# tfm loss history v1: kind, step, loss')");
  CHECK(message_of("step\tloss\n") ==
        "h.tsv line 1: expected the header '# tfm loss history v1: kind, step, loss'");
  CHECK(message_of(kHeader + "train\t1\n") ==
        "h.tsv line 2: expected 'train' or 'held-out', a step and a loss, separated by tabs");
  CHECK(message_of(kHeader + "train\t1\t2\t3\n") ==
        "h.tsv line 2: expected 'train' or 'held-out', a step and a loss, separated by tabs");
  CHECK(message_of(kHeader + "test\t1\t2\n") ==
        "h.tsv line 2: unknown kind 'test' (expected 'train' or 'held-out')");
  CHECK(message_of(kHeader + "train\t0\t2\n") ==
        "h.tsv line 2: the step '0' is not a whole number from 1");
  CHECK(message_of(kHeader + "train\t-1\t2\n") ==
        "h.tsv line 2: the step '-1' is not a whole number from 1");
  CHECK(message_of(kHeader + "train\t1\tnan\n") ==
        "h.tsv line 2: the loss 'nan' is not a finite number");
  CHECK(message_of(kHeader + "train\t2\t1\ntrain\t2\t1\n") ==
        "h.tsv line 3: step 2 comes after step 2");
}

TEST_CASE("a resumed run's losses follow the saved ones", "[loss_history]") {
  SECTION("resumed where the history ends") {
    const TrainingHistory all = joined(history({1, 2, 3, 4}, {2, 4}), history({5, 6}, {6}));
    CHECK(all.steps == std::vector<std::size_t>{1, 2, 3, 4, 5, 6});
    CHECK(all.eval_steps == std::vector<std::size_t>{2, 4, 6});
  }
  SECTION("resumed from an earlier snapshot: the new losses replace the old from its first step") {
    const TrainingHistory later = history({3, 4, 5}, {4, 5});
    const TrainingHistory all = joined(history({1, 2, 3, 4, 5, 6}, {2, 4, 6}), later);
    CHECK(all.steps == std::vector<std::size_t>{1, 2, 3, 4, 5});
    CHECK(all.eval_steps == std::vector<std::size_t>{2, 4, 5});
    CHECK(all.train_loss[2] == later.train_loss[0]);
  }
  SECTION("a run that did not train leaves the history as it was") {
    CHECK(joined(history({1, 2}, {2}), TrainingHistory{}).steps == std::vector<std::size_t>{1, 2});
  }
}

TEST_CASE("a save records the saved losses and the run's", "[loss_history]") {
  const CheckpointHeader header = header_without_files();
  const CheckpointHeader first = with_loss_history(header, history({1, 2}, {2}));
  REQUIRE(first.files.count(kLossHistoryFile) == 1);
  const CheckpointHeader second = with_loss_history(first, history({3}, {}));
  CHECK(saved_loss_history(second).steps == std::vector<std::size_t>{1, 2, 3});
  CHECK(with_loss_history(header, TrainingHistory{}).files.empty());

  SECTION("a resumed run carries a readable history over, and warns about a broken one") {
    CheckpointHeader resumed = header_without_files();
    std::ostringstream out;
    keep_loss_history(second, "ck", resumed, out);
    CHECK(resumed.files == second.files);
    CHECK(out.str().empty());

    CheckpointHeader broken = second;
    broken.files[kLossHistoryFile] = kHeader + "train\tone\t2\n";
    CheckpointHeader fresh = header_without_files();
    keep_loss_history(broken, "ck", fresh, out);
    CHECK(fresh.files.empty());
    CHECK(out.str() ==
          "warning: ck/files/loss_history.tsv line 2: the step 'one' is not a whole number from 1; "
          "the loss curve starts at this run\n");
  }
}
