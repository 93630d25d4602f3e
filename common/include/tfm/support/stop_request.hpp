/// \file stop_request.hpp
/// \brief Support (not a lesson): Ctrl-C asks a training run to stop, it does not throw the run away.
///
/// While a StopOnSignal object lives, the first SIGINT (Ctrl-C), SIGTERM or SIGHUP (the terminal
/// was closed, the ssh session dropped) only sets a flag and
/// says so on stderr; the training loop (tfm::train) checks it between two steps and ends there,
/// as if its budget were spent, so that the program saves what was trained. A second signal ends
/// the program at once, as the signal would have without the object.
#pragma once

namespace tfm {

/// Was a stop requested (a SIGINT, SIGTERM or SIGHUP) since the current StopOnSignal was made? False when
/// none lives.
bool stop_requested();

/// Turns SIGINT, SIGTERM and SIGHUP into a stop request for its lifetime; puts the previous handlers back.
class StopOnSignal {
 public:
  /// Installs the handlers and clears any earlier request.
  StopOnSignal();
  /// Restores the handlers that were there before.
  ~StopOnSignal();
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;
};

}  // namespace tfm
