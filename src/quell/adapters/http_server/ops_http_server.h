#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "quell/app/ops_request.h"
#include "quell/core/result.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace quell::http_server {

struct OpsServerOptions {
  std::string listen = "127.0.0.1:0";  // host:port ([v6]:port); port 0 picks a free one
  // Bearer token for write routes, and for read routes unless open_reads. Empty: every route
  // that needs it answers 403. Never logged.
  std::string token;
  // Who a request with the token is, for the audit fields and the log ("http" when empty).
  std::string token_name;
  bool open_reads = false;
  int threads = 4;
};

// quell's ops HTTP surface (health, metrics, operator endpoints) on cpp-httplib: a list of
// app::OpsRoute served on a background thread. Every error is one JSON shape,
// {"error":{"code":"...","message":"..."}}: 401 without the right bearer token, 403 when no token
// is configured, 404 for an unknown path, 405 (with Allow) for a path that exists under other
// methods, 500 when a handler throws, and httplib's own refusals (400, 413). Route and token are
// checked before the body is read; a request without a body reaches its handler with an empty
// one.
class OpsHttpServer {
 public:
  OpsHttpServer(OpsServerOptions options, std::vector<app::OpsRoute> routes);
  ~OpsHttpServer();
  OpsHttpServer(const OpsHttpServer&) = delete;
  OpsHttpServer& operator=(const OpsHttpServer&) = delete;

  // Binds and starts serving; returns the bound port. kInvalidArgument for a malformed listen
  // address or route pattern, kUnavailable when the address cannot be bound.
  core::Result<int> Start();
  // Stops accepting, lets in-flight requests finish and joins the thread. Idempotent.
  void Stop();
  int port() const { return port_; }

  struct CompiledRoute;

 private:
  // The route `req` names when it may use it; otherwise nullptr with `res` the error.
  const CompiledRoute* Admit(const httplib::Request& req, httplib::Response& res) const;
  void Serve(const CompiledRoute& route, const httplib::Request& req, httplib::Response& res) const;

  OpsServerOptions options_;
  std::vector<app::OpsRoute> routes_;
  std::vector<CompiledRoute> compiled_;
  std::unique_ptr<httplib::Server> http_;
  std::thread thread_;
  std::atomic<bool> listen_returned_{false};
  int port_ = 0;
};

// Splits "host:port" or "[v6]:port"; kInvalidArgument naming what is wrong.
core::Result<std::pair<std::string, int>> ParseListenAddress(const std::string& listen);

// Equal strings, in time that depends only on `expected`'s length, not on where they differ.
bool ConstantTimeEquals(std::string_view expected, std::string_view given);

}  // namespace quell::http_server
