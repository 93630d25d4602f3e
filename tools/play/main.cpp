// The playground: a small web server on this computer only, with one page where a learner types
// text and watches a trained model read it — the output, the model's top choices at every
// position, and the attention of every layer and head. `./tutorial play CHECKPOINT...`.
#include <iostream>
#include <memory>
#include <vector>

#include "models.hpp"
#include "server.hpp"
#include "tfm/machinery/command_line.hpp"

int main(int argc, char** argv) {
  return tfm::run_program([&] {
    tfm::CommandLine cli(
        "play",
        "Serve a page on 127.0.0.1 where you type text and watch trained models "
        "read it\n(./tutorial play CHECKPOINT... gives each checkpoint as --model).");
    cli.repeated("--model", "DIR",
                 "a checkpoint saved by chapter 11 (vowels), pronounce or translate")
        .option("--port", "N", "the port to listen on (0: any free port)", "8000");
    if (!cli.parse(argc, argv)) return 0;
    const int port = static_cast<int>(cli.count("--port", 0, 65535));
    const std::vector<std::string> dirs = cli.values("--model");
    if (dirs.empty()) {
      std::cerr << "No model to play with. Train one and save it, e.g.:\n"
                << play::training_commands()
                << "then: ./tutorial play vowels.ckpt [g2p.ckpt model]\n";
      return 2;
    }
    std::vector<std::unique_ptr<play::PlayModel>> models;
    for (const std::string& dir : dirs) {
      models.push_back(play::load_play_model(dir));
      std::cout << "loaded " << dir << ": " << models.back()->task() << ", "
                << models.back()->size() << std::endl;
    }
    return play::serve(models, port, play::Limits{});
  });
}
