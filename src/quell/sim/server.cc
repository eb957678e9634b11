#include "quell/sim/server.h"

#include <httplib.h>

#include "quell/sim/router.h"
#include "quell/sim/scenario.h"

namespace quell::sim {
namespace {

SimClock MakeClock(const SimOptions& o) {
  return o.real_clock ? SimClock::Real() : SimClock(o.start);
}

}  // namespace

SimServer::SimServer(SimOptions options)
    : options_(std::move(options)),
      state_(std::make_unique<SimState>(MakeClock(options_), options_.config, options_.seed)),
      http_(std::make_unique<httplib::Server>()) {
  state_->startup_faults = options_.faults;
  state_->Reset();
}

SimServer::~SimServer() { Stop(); }

core::Result<int> SimServer::Start() {
  if (options_.scenario) {
    std::lock_guard lock(state_->mu);
    if (auto s = LoadScenario(*state_, *options_.scenario); !s.ok()) return s.error();
  }
  const int threads = options_.threads;
  http_->new_task_queue = [threads] {
    return new httplib::ThreadPool(static_cast<size_t>(threads));
  };
  // Keep-alive lets a paginated walk of 100k groups reuse one connection.
  http_->set_keep_alive_max_count(100000);
  http_->set_payload_max_length(size_t{64} * 1024 * 1024);
  http_->set_error_handler(
      httplib::Server::HandlerWithResponse([](const httplib::Request& req, httplib::Response& res) {
        // Only for requests no route answered; routed errors already carry an envelope.
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        // cpp-httplib answers 400 before routing when it cannot read a body, e.g. a POST with
        // no Content-Length (`curl -XPOST URL`): that is not a missing route.
        const bool not_found = res.status == 404;
        const std::string message =
            not_found ? "no route " + req.method + " " + req.path
                      : "HTTP " + std::to_string(res.status) + ": could not read the request " +
                            req.method + " " + req.path +
                            "; a POST needs a body or Content-Length: 0 (curl -d '{}')";
        nlohmann::json body = {{"ok", false},
                               {"data", nullptr},
                               {"error",
                                {{"code", not_found ? "NOT_FOUND" : "INVALID_ARGUMENT"},
                                 {"message", message},
                                 {"hint", nullptr}}},
                               {"metadata", {{"request_id", ""}}}};
        res.set_content(body.dump(), "application/json");
        return httplib::Server::HandlerResponse::Handled;
      }));
  http_->set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, const std::exception_ptr&) {
        res.status = 500;
        res.set_content(R"({"ok":false,"data":null,"error":{"code":"INTERNAL","message":)"
                        R"("simulator error","hint":null},"metadata":{"request_id":""}})",
                        "application/json");
      });
  router_ = std::make_unique<Router>(*http_, *state_);
  RegisterErrorRoutes(*router_);
  RegisterMetricRoutes(*router_);
  RegisterLogRoutes(*router_);
  RegisterDiscoveryRoutes(*router_);
  RegisterAdminRoutes(*router_);

  if (options_.port == 0) {
    port_ = http_->bind_to_any_port(options_.host);
    if (port_ <= 0) {
      return core::MakeError(core::ErrorCode::kUnavailable, "cannot bind " + options_.host);
    }
  } else {
    if (!http_->bind_to_port(options_.host, options_.port)) {
      return core::MakeError(core::ErrorCode::kUnavailable,
                             "cannot bind " + options_.host + ":" + std::to_string(options_.port));
    }
    port_ = options_.port;
  }
  thread_ = std::thread([this] { http_->listen_after_bind(); });
  return port_;
}

void SimServer::Stop() {
  state_->sleeper.WakeAll();
  if (http_) http_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace quell::sim
