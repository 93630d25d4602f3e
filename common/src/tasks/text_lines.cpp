#include "tfm/tasks/text_lines.hpp"

#include <istream>
#include <optional>
#include <ostream>
#include <stdexcept>

#include "tfm/pictures/attention_dir.hpp"
#include "tfm/pictures/inspection.hpp"

namespace tfm {

std::size_t answer_lines(std::istream& in, std::ostream& out, std::ostream& err,
                         const std::string& what, Transformer& model, const Vocabulary& source,
                         const Vocabulary& target,
                         const std::function<LineAnswer(const std::string&)>& answer,
                         const std::string& attention_dir) {
  std::optional<LineAnswer> last;
  std::size_t refused = 0, number = 0;
  std::string line;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();  // a file saved on Windows
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    try {
      LineAnswer answered = answer(line);
      for (const std::string& note : answered.notes) out << "note: " << note << "\n";
      out << line << "  ->  " << answered.output << std::endl;
      last = std::move(answered);
    } catch (const std::invalid_argument& e) {
      err << "error: " << what << ": line " << number << ": " << e.what() << std::endl;
      ++refused;
    }
  }
  if (!attention_dir.empty() && last)
    out << attention_dir_note(write_attention_dir(
               attention_dir, inspect(model, last->src, last->generated, 1), source, target))
        << "\n";
  return refused;
}

}  // namespace tfm
