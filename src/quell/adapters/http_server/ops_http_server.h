#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "quell/app/ops_request.h"
#include "quell/core/result.h"

namespace httplib {
struct Request;
struct Response;
}  // namespace httplib

namespace quell::http_server {

class ConnectionGate;
class WorkerLane;
struct HeldConnection;

struct OpsServerOptions {
  std::string listen = "127.0.0.1:0";  // host:port ([v6]:port); port 0 picks a free one
  // Bearer token for write routes, and for read routes unless open_reads. Empty: every route
  // that needs it answers 403. Never logged.
  std::string token;
  // Who a request with the token is, for the audit fields and the log ("http" when empty).
  std::string token_name;
  bool open_reads = false;
  int threads = 4;  // workers for every request but the probes
  // GET requests for each of these paths are served by workers of their own (probe_threads per
  // path), so neither a slow request elsewhere nor a readiness probe waiting on the store ever
  // delays the liveness probe.
  std::vector<std::string> probe_paths = {"/healthz", "/readyz"};
  int probe_threads = 1;
  // The request head must arrive whole within this, however steadily it trickles in; until
  // then the connection holds no worker. A slower client gets 408.
  std::chrono::milliseconds header_timeout = std::chrono::seconds(10);
  // The body must arrive within this of the head; a slower one is cut (400).
  std::chrono::milliseconds body_timeout = std::chrono::seconds(30);
  // A kept-alive connection with no new request is closed after this.
  std::chrono::milliseconds idle_timeout = std::chrono::seconds(5);
  // Connections open at once; past it the one that has waited longest for its head is closed.
  int max_connections = 256;
};

// quell's ops HTTP surface (health, metrics, operator endpoints): a list of app::OpsRoute.
// Connections are accepted and their request heads read by one poll() thread
// (ConnectionGate), so idle and slow-header clients hold no worker; complete requests go to
// cpp-httplib's request processing on a pool of workers, probes on a pool of their own. Every error
// is one JSON shape,
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
  // Stops accepting, lets in-flight requests finish and joins the threads. Idempotent.
  void Stop();
  int port() const { return port_; }

  struct CompiledRoute;

 private:
  // The route `req` names when it may use it; otherwise nullptr with `res` the error.
  const CompiledRoute* Admit(const httplib::Request& req, httplib::Response& res) const;
  void Serve(const CompiledRoute& route, const httplib::Request& req, httplib::Response& res) const;
  // Routes a connection whose head arrived to its lane.
  void Dispatch(HeldConnection connection);
  // Serves one request of `connection` on a worker, then hands it back to the gate or closes it.
  void ServeConnection(HeldConnection connection);
  void Discard(const HeldConnection& connection);

  class RouteServer;

  OpsServerOptions options_;
  std::vector<app::OpsRoute> routes_;
  std::vector<CompiledRoute> compiled_;
  std::unique_ptr<RouteServer> http_;
  std::unique_ptr<ConnectionGate> gate_;
  std::vector<std::unique_ptr<WorkerLane>> probes_;  // one per probe path
  std::unique_ptr<WorkerLane> workers_;
  bool running_ = false;
  int port_ = 0;
};

// Splits "host:port" or "[v6]:port"; kInvalidArgument naming what is wrong.
core::Result<std::pair<std::string, int>> ParseListenAddress(const std::string& listen);

// Equal strings, in time that depends only on `expected`'s length, not on where they differ.
bool ConstantTimeEquals(std::string_view expected, std::string_view given);

}  // namespace quell::http_server
