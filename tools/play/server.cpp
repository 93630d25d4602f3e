#include "server.hpp"

#include <httplib.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "answers.hpp"
#include "page.hpp"
#include "tfm/support/parse_number.hpp"

namespace play {
namespace {

constexpr const char* kHost = "127.0.0.1";

int stop_pipe[2] = {-1, -1};  // a signal handler writes to [1]; the stopper thread reads [0]

void refuse(httplib::Response& response, int status, const std::string& message) {
  response.status = status;
  response.set_content("error: " + message + "\n", "text/plain; charset=utf-8");
}

// A whole number from `low` to `high` given as the form field `name`; throws
// std::invalid_argument naming the field.
std::size_t field_number(const httplib::Request& request, const char* name, std::size_t low,
                         std::size_t high) {
  const std::string value = request.get_param_value(name);
  const std::optional<long long> number = tfm::parse_number<long long>(value);
  if (!number)
    throw std::invalid_argument(std::string(name) + " must be a whole number, got '" + value + "'");
  if (*number < static_cast<long long>(low) || *number > static_cast<long long>(high))
    throw std::invalid_argument(std::string(name) + " must be from " + std::to_string(low) +
                                " to " + std::to_string(high) + ", got " + value);
  return static_cast<std::size_t>(*number);
}

tfm::AttentionKind field_kind(const httplib::Request& request) {
  const std::string kind = request.get_param_value("kind");
  for (const tfm::AttentionKind k : {tfm::AttentionKind::kEncoderSelf,
                                     tfm::AttentionKind::kDecoderSelf, tfm::AttentionKind::kCross})
    if (kind == tfm::attention_kind_name(k)) return k;
  throw std::invalid_argument("kind must be encoder_self, decoder_self or cross, got '" + kind +
                              "'");
}

// Counts the model requests in the server; more than the limit are refused, not queued.
class Admission {
 public:
  explicit Admission(std::atomic<std::size_t>& count) : count_(count) { ++count_; }
  ~Admission() { --count_; }
  Admission(const Admission&) = delete;
  Admission& operator=(const Admission&) = delete;
  std::size_t count() const { return count_; }

 private:
  std::atomic<std::size_t>& count_;
};

}  // namespace

int serve(std::vector<std::unique_ptr<PlayModel>>& models, int port, const Limits& limits) {
  // Ctrl-C and SIGTERM wake a thread that stops the server (a signal handler may not call stop()
  // itself): the handler only writes a byte into a pipe, whichever thread the signal lands on
  // (OpenMP's and OpenBLAS's threads exist already). A second Ctrl-C ends the program at once.
  if (pipe(stop_pipe) != 0) throw std::runtime_error("cannot create a pipe for Ctrl-C");
  struct sigaction on_stop {};
  on_stop.sa_handler = [](int) {
    const char byte = 's';
    [[maybe_unused]] const ssize_t written = write(stop_pipe[1], &byte, 1);
  };
  sigemptyset(&on_stop.sa_mask);
  on_stop.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &on_stop, nullptr);
  sigaction(SIGTERM, &on_stop, nullptr);

  httplib::Server server;
  server.set_payload_max_length(limits.max_body_bytes);
  server.set_read_timeout(limits.timeout_seconds, 0);
  server.set_write_timeout(limits.timeout_seconds, 0);
  server.set_keep_alive_timeout(limits.timeout_seconds);
  server.set_keep_alive_max_count(20);

  const int bound = port == 0 ? server.bind_to_any_port(kHost) : port;
  if (bound < 0 || (port != 0 && !server.bind_to_port(kHost, port))) {
    std::cerr << "error: cannot listen on " << kHost << ":" << port
              << " (in use? choose another with --port, or --port 0 for any free one)\n";
    return 1;
  }
  const std::string origin = "http://" + std::string(kHost) + ":" + std::to_string(bound);

  // A page from another site cannot read the answers (no CORS header), and a name that resolves
  // to 127.0.0.1 (DNS rebinding) is refused by the Host check.
  server.set_pre_routing_handler([&](const httplib::Request& request, httplib::Response& response) {
    const std::string host = request.get_header_value("Host");
    if (host != std::string(kHost) + ":" + std::to_string(bound) &&
        host != "localhost:" + std::to_string(bound)) {
      refuse(response, 403, "this server answers only to " + origin);
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  server.set_error_handler([&](const httplib::Request&, httplib::Response& response) {
    if (!response.body.empty()) return;
    const char* why = response.status == 404   ? "no such page: the playground is at /"
                      : response.status == 413 ? "the request is too large"
                                               : "the request could not be served";
    refuse(response, response.status, why);
  });

  server.Get("/", [&](const httplib::Request&, httplib::Response& response) {
    response.set_header("Content-Security-Policy",
                        "default-src 'none'; script-src 'unsafe-inline'; style-src "
                        "'unsafe-inline'; connect-src 'self'; img-src 'self' data:");
    response.set_content(kPage, "text/html; charset=utf-8");
  });
  server.Get("/api/models", [&](const httplib::Request&, httplib::Response& response) {
    response.set_content(models_json(models), "application/json");
  });

  std::mutex model_lock;  // one model runs at a time: a model keeps state while it decodes
  std::atomic<std::size_t> in_server{0};
  // Reads the common fields, admits the request, runs `answer` on the chosen model.
  const auto model_request = [&](const httplib::Request& request, httplib::Response& response,
                                 const auto& answer) {
    Admission admitted(in_server);
    if (admitted.count() > limits.max_waiting) {
      response.set_header("Retry-After", "1");
      return refuse(response, 503,
                    "busy: " + std::to_string(limits.max_waiting) +
                        " requests are already waiting for the model; try again");
    }
    try {
      const std::size_t index = field_number(request, "model", 0, models.size() - 1);
      const std::size_t beam = field_number(request, "beam", 1, limits.max_beam);
      const std::string text = request.get_param_value("text");
      if (text.size() > limits.max_text_bytes)
        return refuse(response, 413,
                      "the text has " + std::to_string(text.size()) + " bytes; at most " +
                          std::to_string(limits.max_text_bytes) + " are read");
      const std::lock_guard<std::mutex> hold(model_lock);
      answer(*models[index], text, beam);
    } catch (const std::invalid_argument& e) {
      refuse(response, 400, e.what());
    } catch (const std::out_of_range& e) {
      refuse(response, 400, e.what());
    }
  };
  server.Post("/api/answer", [&](const httplib::Request& request, httplib::Response& response) {
    model_request(request, response,
                  [&](PlayModel& model, const std::string& text, std::size_t beam) {
                    response.set_content(answer_json(model, text, beam), "application/json");
                  });
  });
  server.Post("/api/attention", [&](const httplib::Request& request, httplib::Response& response) {
    model_request(
        request, response, [&](PlayModel& model, const std::string& text, std::size_t beam) {
          const tfm::AttentionKind kind = field_kind(request);
          const std::size_t window = field_number(request, "window", 0, 1000);
          const std::size_t layer = field_number(request, "layer", 0, 1000);
          const std::size_t head = field_number(request, "head", 0, 1000);
          response.set_content(attention_svg(model, text, beam, window, kind, layer, head),
                               "image/svg+xml");
        });
  });

  std::thread stopper([&] {
    char byte = 0;
    while (read(stop_pipe[0], &byte, 1) < 0 && errno == EINTR) {
    }
    server.stop();
  });
  std::cout << "playground: " << origin << "/  (" << models.size()
            << (models.size() == 1 ? " model" : " models") << "; Ctrl-C stops it)" << std::endl;
  server.listen_after_bind();
  const char byte = 'e';  // listening ended on its own (or by a signal): end the stopper
  [[maybe_unused]] const ssize_t written = write(stop_pipe[1], &byte, 1);
  stopper.join();
  std::cout << "playground stopped" << std::endl;
  return 0;
}

}  // namespace play
