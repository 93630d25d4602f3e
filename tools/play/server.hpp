// The playground's web server (Debian's cpp-httplib): one page and three answers, on the loopback
// address only, with limits that keep a runaway or stalled browser from hurting it.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "models.hpp"

namespace play {

// What the server accepts.
struct Limits {
  std::size_t max_body_bytes = 16 * 1024;  // a larger request: 413
  std::size_t max_text_bytes = 2000;       // a longer text: 413
  std::size_t max_beam = 8;                // beam K from 1 to this, else 400
  std::size_t max_waiting = 4;             // model requests queued at once; one more: 503
  int timeout_seconds = 5;                 // reading or writing a request, an idle connection
};

// Serves `models` on 127.0.0.1:`port` (0: any free port) until SIGINT or SIGTERM, printing the
// address as soon as it listens. Returns the exit code: 0 after a signal, 1 if it could not bind.
int serve(std::vector<std::unique_ptr<PlayModel>>& models, int port, const Limits& limits);

}  // namespace play
