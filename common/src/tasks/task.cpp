#include "tfm/tasks/task.hpp"

#include <utility>

namespace tfm {

Task::Task(std::string name, Vocabulary source, Vocabulary target, std::size_t source_length,
           std::size_t target_length, const Config& preset, std::size_t default_steps)
    : name_(std::move(name)),
      source_vocabulary_(std::move(source)),
      target_vocabulary_(std::move(target)),
      source_length_(source_length),
      target_length_(target_length),
      default_model_(fit(preset)),
      default_steps_(default_steps) {}

Config Task::fit(Config config) const {
  config.src_vocab_size = source_vocabulary_.size();
  config.tgt_vocab_size = target_vocabulary_.size();
  config.src_len = source_length_;
  config.tgt_len = target_length_;
  return config;
}

const std::vector<std::string>& Task::data_keys() {
  static const std::vector<std::string> keys = {"src_vocab_size", "tgt_vocab_size", "src_len",
                                                "tgt_len"};
  return keys;
}

std::string generated_text(const Vocabulary& vocabulary, const TokenIds& tokens, std::size_t row) {
  std::vector<std::int32_t> ids;
  for (std::size_t t = 0; t < tokens.shape(1); ++t) {
    const std::int32_t id = tokens(row, t);
    if (ends_text(id)) break;
    ids.push_back(id);
  }
  return vocabulary.decode(ids);
}

bool row_ended(const TokenIds& tokens, std::size_t row) {
  for (std::size_t t = 0; t < tokens.shape(1); ++t)
    if (ends_text(tokens(row, t))) return true;
  return false;
}

}  // namespace tfm
