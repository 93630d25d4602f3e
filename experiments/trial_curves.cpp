// The lab's trials as learning curves: held-out vowel accuracy against steps, one line per run
// that recorded several checkpoints, the 2- and 3-letter rules as flat lines; one chart per corpus.
// The recipe's runs under other kernels (their command starts with "OPENBLAS_CORETYPE=..." and
// the like) are left out: they are one recipe's paths, and the lab tables them on their own.
//
//   ./build/bin/trial_curves --trials experiments/trials.tsv    (writes trials_<corpus>.svg here)
//
// The book runs it, so that the appendix and chapter 11 show the curves of the committed table.
#include <algorithm>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tfm/machinery/command_line.hpp"
#include "tfm/pictures/line_chart.hpp"
#include "tfm/support/parse_number.hpp"
#include "tfm/support/text_file.hpp"

namespace {

struct Trial {
  std::string run, corpus;
  double steps = 0, vowels = 0, rule2 = 0, rule3 = 0;
  bool own_environment = false;  // run as "NAME=value ... ./build/bin/ch11_train_test ..."
};

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> fields;
  std::istringstream in(line);
  for (std::string field; std::getline(in, field, '\t');) fields.push_back(field);
  return fields;
}

// Every row of trials.tsv; a checkpoint row "smooth-14000" (steps 14000) belongs to the run "smooth".
std::vector<Trial> read_trials(const std::string& path) {
  std::istringstream in(tfm::read_text_file(path, "trials table"));
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = split_tabs(line);
  const auto column = [&](const std::string& name) {
    const auto at = std::find(header.begin(), header.end(), name);
    if (at == header.end()) throw std::runtime_error("'" + path + "' has no column '" + name + "'");
    return static_cast<std::size_t>(at - header.begin());
  };
  const std::size_t id = column("id"), corpus = column("corpus"), command = column("command"),
                    steps = column("steps"), vowels = column("vowels"), rule2 = column("base_2"),
                    rule3 = column("base_3");
  std::vector<Trial> trials;
  for (int number = 2; std::getline(in, line); ++number) {
    const std::vector<std::string> f = split_tabs(line);
    if (f.size() < header.size())
      throw std::runtime_error("'" + path + "', line " + std::to_string(number) + " has " +
                               std::to_string(f.size()) + " columns; the header has " +
                               std::to_string(header.size()));
    const auto value = [&](std::size_t i) {
      const auto v = tfm::parse_number<double>(f[i]);
      if (!v)
        throw std::runtime_error("'" + path + "', line " + std::to_string(number) + ": column " +
                                 header[i] + " is not a number");
      return *v;
    };
    const std::string first_word = f[command].substr(0, f[command].find(' '));
    Trial t{f[id],
            f[corpus],
            value(steps),
            value(vowels),
            value(rule2),
            value(rule3),
            first_word.find('=') != std::string::npos};
    const std::string suffix = "-" + f[steps];
    if (t.run.size() > suffix.size() &&
        t.run.compare(t.run.size() - suffix.size(), suffix.size(), suffix) == 0)
      t.run.resize(t.run.size() - suffix.size());
    trials.push_back(t);
  }
  return trials;
}

}  // namespace

int main(int argc, char** argv) {
  return tfm::run_program([&] {
    tfm::CommandLine cli("trial_curves",
                         "The lab's trials as learning curves, one SVG chart per corpus.");
    cli.option("--trials", "FILE", "the lab's table of trials (experiments/trials.tsv)");
    if (!cli.parse(argc, argv)) return 0;
    if (!cli.given("--trials")) throw tfm::UsageError("--trials FILE is needed");
    const std::vector<Trial> trials = read_trials(cli.value("--trials"));
    std::map<std::string, std::map<std::string, std::vector<const Trial*>>> runs;  // corpus -> run
    for (const Trial& t : trials)
      if (!t.own_environment) runs[t.corpus][t.run].push_back(&t);
    const std::vector<std::string> colours = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                              "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
    for (const auto& [corpus, by_run] : runs) {
      std::vector<tfm::ChartSeries> series;
      double last_step = 0;
      for (const auto& [run, points] : by_run) {
        if (points.size() < 3) continue;  // a single trial is a row of the table, not a curve
        if (series.size() == colours.size())
          throw std::runtime_error("'" + cli.value("--trials") + "' has more than " +
                                   std::to_string(colours.size()) + " curves on " + corpus +
                                   ": two would share a colour (add one to trial_curves.cpp)");
        tfm::ChartSeries s{run, {}, {}, colours[series.size()]};
        std::vector<const Trial*> sorted = points;
        std::sort(sorted.begin(), sorted.end(),
                  [](auto* a, auto* b) { return a->steps < b->steps; });
        for (const Trial* t : sorted) {
          s.x.push_back(t->steps);
          s.y.push_back(t->vowels);
          last_step = std::max(last_step, t->steps);
        }
        series.push_back(s);
      }
      if (series.empty()) continue;
      const Trial& any = *by_run.begin()->second.front();
      series.push_back({"2-letter rule", {0, last_step}, {any.rule2, any.rule2}, "#aaaaaa"});
      series.push_back({"3-letter rule", {0, last_step}, {any.rule3, any.rule3}, "#555555"});
      const std::string file = "trials_" + corpus + ".svg";
      const std::string title = corpus == "sherlock"       ? "The Adventures of Sherlock Holmes"
                                : corpus == "time-machine" ? "The Time Machine"
                                                           : corpus;
      tfm::write_line_chart_svg(file, series,
                                {"Held-out vowels restored: " + title, "step", "accuracy"});
      std::cout << "wrote " << file << " (" << series.size() - 2 << " runs)\n";
    }
    return 0;
  });
}
