#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "quell/core/result.h"

namespace quell::http_server {

// One answer to a request, as the front writes it.
struct HttpAnswer {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers{};
};

// The one error shape: {"error":{"code":"...","message":"..."}}.
HttpAnswer ErrorAnswer(int status, std::string_view code, std::string_view message);

// A request head as it arrived, for the server to decide on before any of the body is read.
struct RequestHead {
  std::string method;
  std::string target;                                        // as sent, still percent-encoded
  std::vector<std::pair<std::string, std::string>> headers;  // lower-case names, in order
  bool has_body = false;                   // a Content-Length over 0, or chunked framing
  std::optional<uint64_t> content_length;  // none when chunked or absent
};

// What the server decided about a head.
struct Admission {
  std::optional<HttpAnswer> refusal;  // answered at once; the body is never read
  size_t lane = 0;                    // the worker lane that runs `handle`
  // Counts against FrontOptions::max_unauthenticated while its body is read, it waits for a
  // worker, is handled and answered.
  bool unauthenticated = true;
  uint64_t max_body = uint64_t{1} << 20;  // a larger declared body is 413 before it is read
  // Runs on a worker of `lane` with the whole body; may block (on the store, say). An
  // exception becomes a 500.
  std::function<HttpAnswer(std::string body)> handle{};
};

struct FrontOptions {
  // The request head must arrive whole within this of the connection (or of its first byte,
  // on a kept-alive connection), however steadily it trickles: 408.
  std::chrono::milliseconds header_timeout = std::chrono::seconds(10);
  // A kept-alive connection with nothing of a next request is closed after this.
  std::chrono::milliseconds idle_timeout = std::chrono::seconds(5);
  // The body must arrive within max(body_timeout, its size / min_body_rate) of its head (a
  // chunked body: its route's limit / min_body_rate): 408.
  std::chrono::milliseconds body_timeout = std::chrono::seconds(30);
  uint64_t min_body_rate = uint64_t{16} * 1024;  // bytes per second
  // An answer must be taken by the client within this, or the connection is closed.
  std::chrono::milliseconds write_timeout = std::chrono::seconds(5);
  // Connections open at once. Past it the one that has waited longest for a head makes room,
  // else the oldest unauthenticated request in flight; else the newcomer is closed.
  size_t max_connections = 256;
  // Unauthenticated requests in flight (Admission::unauthenticated, from their head to their
  // answer). Past it the oldest one still reading its body or waiting for a worker is dropped
  // with a 503; when none can be, the newcomer is.
  size_t max_unauthenticated = 64;
  size_t max_head_bytes = size_t{16} * 1024;  // a longer head is answered 431
  std::vector<size_t> lanes = {4};            // threads per worker lane, by Admission::lane
};

// Decides about each head on the I/O thread; must not block.
using Admit = std::function<Admission(RequestHead head)>;

// The ops server's HTTP/1.1 front on Boost.Beast and Asio: one I/O thread accepts, reads heads
// and bodies and writes answers asynchronously, so a client that trickles bytes holds a socket
// and a buffer, never a thread; only a request read whole reaches a worker, on the lane its
// admission names. Every refusal of the front itself is in the one error shape.
class HttpFront {
 public:
  HttpFront(FrontOptions options, Admit admit);
  ~HttpFront();
  HttpFront(const HttpFront&) = delete;
  HttpFront& operator=(const HttpFront&) = delete;

  // Binds host:port (port 0: a free one) with SO_REUSEADDR and listens; returns the port.
  // kUnavailable naming the cause when it cannot.
  core::Result<int> Listen(const std::string& host, int port, const std::string& listen_text);
  // Starts the I/O thread and the worker lanes; call after Listen.
  void Start();
  // Stops accepting, lets the handlers running finish (their answers are sent as far as the
  // socket takes them at once), closes every connection and joins the threads. Idempotent.
  void Stop();

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace quell::http_server
