// Checks of the exercise positional_encoding (chapter 03).
#include "tfm/layers/positional_encoding.hpp"

#include <cmath>

#include "convert.hpp"
#include "report.hpp"

namespace ex {
Tensor positional_encoding(std::size_t max_len, std::size_t d_model);
}

using namespace ex;
using namespace ex::check;

namespace {

// The table with one mistake: `swap` puts cos on even columns, `per_column` uses j instead of 2i.
Tensor mistaken_table(std::size_t max_len, std::size_t d_model, bool swap, bool per_column) {
  Tensor pe({max_len, d_model});
  for (std::size_t pos = 0; pos < max_len; ++pos) {
    for (std::size_t j = 0; j < d_model; ++j) {
      const double exponent = double(per_column ? j : j - j % 2) / double(d_model);
      const double angle = double(pos) / std::pow(10000.0, exponent);
      pe(pos, j) = float((j % 2 == 0) != swap ? std::sin(angle) : std::cos(angle));
    }
  }
  return pe;
}

}  // namespace

int main() {
  Report report("positional_encoding", "ex::positional_encoding(max_len, d_model)");
  const std::vector<std::pair<std::size_t, std::size_t>> sizes = {
      {1, 2}, {10, 8}, {50, 64}, {7, 5}};
  report.check(
      "shape: pe is [max_len, d_model] = [10, 8]",
      [&] {
        const Tensor got = positional_encoding(10, 8);
        if (got.shape() == std::vector<std::size_t>{10, 8}) return std::string();
        return compare("pe", Tensor({10, 8}), got);
      },
      "create Tensor pe({max_len, d_model}) and fill every entry.");
  for (const auto& [max_len, d_model] : sizes) {
    const std::string size = "[" + std::to_string(max_len) + ", " + std::to_string(d_model) + "]";
    report.check(
        "values against the library's PositionalEncoding table, " + size +
            (d_model % 2 ? " (odd d_model: the last column is a sine)" : ""),
        [&] {
          const Tensor expected = to_ex(tfm::PositionalEncoding(max_len, d_model).table());
          return compare(
              "pe", expected, positional_encoding(max_len, d_model),
              {{"the table with sin and cos swapped (cos on even columns)",
                mistaken_table(max_len, d_model, true, false)},
               {"the table with exponent j / d_model instead of 2i / d_model (i = j / 2)",
                mistaken_table(max_len, d_model, false, true)}},
              2e-6f, 1e-4f);
        },
        "column j uses i = j / 2, so columns 2i and 2i + 1 share one frequency; sin on even "
        "columns, cos on odd. Compute the angle in double, then store it as float.");
  }
  report.check(
      "row 0 is sin(0), cos(0), ... = 0, 1, 0, 1, ...",
      [&] {
        Tensor expected({1, 6});
        for (std::size_t j = 1; j < 6; j += 2) expected(0, j) = 1.0f;
        const Tensor pe = positional_encoding(3, 6);
        Tensor first({1, 6});
        for (std::size_t j = 0; j < 6 && pe.rank() == 2; ++j) first(0, j) = pe(0, j);
        return pe.rank() == 2 ? compare("pe[0]", expected, first)
                              : compare("pe", Tensor({3, 6}), pe);
      },
      "position 0 has angle 0 on every column.");
  return report.finish();
}
