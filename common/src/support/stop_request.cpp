#include "tfm/support/stop_request.hpp"

#include <signal.h>
#include <unistd.h>

#include <csignal>

namespace tfm {
namespace {

volatile std::sig_atomic_t requested = 0;
volatile std::sig_atomic_t installed = 0;
struct sigaction previous_int, previous_term, previous_hup;

// Only async-signal-safe calls here: write(2), signal(2), raise(3).
void on_signal(int signal_number) {
  if (requested) {  // the second signal: do what it would have done without us
    std::signal(signal_number, SIG_DFL);
    std::raise(signal_number);
    return;
  }
  requested = 1;
  static const char message[] =
      "\nstop requested: training ends after this step, then the model is saved"
      " (press Ctrl-C again to quit at once)\n";
  const ssize_t ignored = ::write(STDERR_FILENO, message, sizeof message - 1);
  (void)ignored;
}

}  // namespace

bool stop_requested() {
  return installed && requested;
}

StopOnSignal::StopOnSignal() {
  requested = 0;
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // a read or write the signal interrupts goes on
  sigaction(SIGINT, &action, &previous_int);
  sigaction(SIGTERM, &action, &previous_term);
  sigaction(SIGHUP, &action, &previous_hup);  // a closed terminal, a dropped ssh session
  installed = 1;
}

StopOnSignal::~StopOnSignal() {
  installed = 0;
  sigaction(SIGINT, &previous_int, nullptr);
  sigaction(SIGTERM, &previous_term, nullptr);
  sigaction(SIGHUP, &previous_hup, nullptr);
}

}  // namespace tfm
