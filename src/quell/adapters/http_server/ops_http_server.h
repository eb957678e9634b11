#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "quell/app/ops_request.h"
#include "quell/core/result.h"

namespace quell::http_server {

class HttpFront;
class SessionStore;
struct Admission;
struct HttpAnswer;
struct RequestHead;

struct OpsServerOptions {
  std::string listen = "127.0.0.1:0";  // host:port ([v6]:port); port 0 picks a free one
  // Bearer token for write routes, and for read routes unless open_reads. Empty: every route
  // that needs it answers 403. Never logged.
  std::string token{};
  // Who a request with the token is, for the audit fields and the log ("http" when empty).
  std::string token_name{};
  bool open_reads = false;
  int threads = 4;  // workers for requests that carry the token
  // GET requests for each of these paths are served by workers of their own (probe_threads per
  // path), so neither a slow request elsewhere nor a readiness probe waiting on the store ever
  // delays the liveness probe.
  std::vector<std::string> probe_paths = {"/healthz", "/readyz"};
  int probe_threads = 1;
  // The request head must arrive whole within this, however steadily it trickles in: 408.
  std::chrono::milliseconds header_timeout = std::chrono::seconds(10);
  // The body must arrive within max(body_timeout, its size / min_body_rate) of the head: 408.
  std::chrono::milliseconds body_timeout = std::chrono::seconds(30);
  // A kept-alive connection with no new request is closed after this.
  std::chrono::milliseconds idle_timeout = std::chrono::seconds(5);
  // Connections open at once; past it the one that has waited longest for its head is closed,
  // else the oldest unauthenticated request still reading its body or waiting for a worker.
  int max_connections = 256;
  // Workers for requests without the token (public routes: ack links, provider callbacks, the
  // page's files; reads when open_reads), apart from the token holders' and the probes'.
  int unauthenticated_threads = 2;
  // Requests without the token in flight at once (body, queue, handler, answer); past it the
  // oldest one not yet at a worker is dropped with a 503.
  int max_unauthenticated = 64;
  uint64_t min_body_rate = uint64_t{16} * 1024;  // bytes per second, see body_timeout
  std::chrono::milliseconds write_timeout = std::chrono::seconds(5);
  // With open_reads, a request without the token (probes aside) must name in its Host header
  // an IP address, localhost, the listen address's host or one of these names (the host of
  // http.public_url, say); any other is 421, so a DNS-rebinding page cannot read the API.
  std::vector<std::string> allowed_hosts{};
  // The operator page's logins (session_store.h): a request whose session cookie names one of
  // these is served as the token's holder, except that a state-changing one (any method but GET
  // and HEAD) must also carry the X-Quell-Csrf header (403 without). Null: no sessions.
  std::shared_ptr<SessionStore> sessions{};
};

// quell's ops HTTP surface (health, metrics, operator endpoints): a list of app::OpsRoute
// served by an HttpFront (Boost.Beast): the I/O never holds a thread, so slow or idle clients
// cost a socket each. A request's head is checked on the I/O thread before its body is read:
// the target (percent-decoded, UTF-8), the route, the token, the Host (open_reads), the route's
// body limit. Its handler then runs on a worker lane of its class: one per probe path, one for
// requests with the token, one for the rest, so that no probe or token holder waits behind
// unauthenticated clients. Every error is one JSON shape,
// {"error":{"code":"...","message":"..."}}: 400 for a malformed request or one that is not
// UTF-8, 401 without the right bearer token, 403 when no token is configured, 404 for an
// unknown path, 405 (with Allow) for a path that exists under other methods, 408 for a head or
// body too slow, 413 for a body over its route's limit, 421 for a Host not allowed, 431 for a
// head too large, 500 when a handler throws, 503 when unauthenticated requests are dropped to
// make room. A request without a body reaches its handler with an empty one. Every answer
// carries nosniff, and every HTML answer the security headers (security_headers.h).
class OpsHttpServer {
 public:
  OpsHttpServer(OpsServerOptions options, std::vector<app::OpsRoute> routes);
  ~OpsHttpServer();
  OpsHttpServer(const OpsHttpServer&) = delete;
  OpsHttpServer& operator=(const OpsHttpServer&) = delete;

  // Binds and starts serving; returns the bound port. kInvalidArgument for a malformed listen
  // address or route pattern, kUnavailable when the address cannot be bound.
  core::Result<int> Start();
  // Stops accepting, lets the handlers running finish and joins the threads. Idempotent.
  void Stop();
  int port() const { return port_; }

  struct CompiledRoute;

 private:
  // Runs on the I/O thread: must not block.
  Admission Admit(RequestHead head) const;

  OpsServerOptions options_;
  std::vector<app::OpsRoute> routes_;
  std::vector<CompiledRoute> compiled_;
  std::vector<std::string> allowed_hosts_;  // as HostName gives them
  std::unique_ptr<HttpFront> front_;
  bool running_ = false;
  int port_ = 0;
};

// Splits "host:port" or "[v6]:port"; kInvalidArgument naming what is wrong.
core::Result<std::pair<std::string, int>> ParseListenAddress(const std::string& listen);

// Equal strings, in time that depends only on `expected`'s length, not on where they differ.
bool ConstantTimeEquals(std::string_view expected, std::string_view given);

}  // namespace quell::http_server
