// The /v1/logs/... family (INFRAI.md §5): only enough for discovery's entries to be callable.
#include <httplib.h>

#include "quell/sim/router.h"

namespace quell::sim {
namespace {

using nlohmann::json;

constexpr size_t kMaxLogs = 10000;

Reply Ingest(const httplib::Request& req, SimState& state) {
  json body = json::parse(req.body, nullptr, false);
  if (body.is_discarded() || !body.is_object() || !body.contains("entries") ||
      !body["entries"].is_array()) {
    return Reply::Fail(400, "INVALID_ARGUMENT", "entries (an array) is required");
  }
  int64_t accepted = 0;
  for (json& e : body["entries"]) {
    if (!e.is_object()) continue;
    if (!e.contains("timestamp")) e["timestamp"] = core::FormatRfc3339(state.clock.Now());
    state.logs.push_back(std::move(e));
    ++accepted;
  }
  while (state.logs.size() > kMaxLogs) state.logs.pop_front();
  return Reply::Ok({{"accepted", accepted}});
}

// Discovery declares no filters for logs.search, so none are honoured: the newest 100 entries.
Reply Search(const httplib::Request&, SimState& state) {
  json items = json::array();
  size_t n = std::min<size_t>(100, state.logs.size());
  for (size_t i = 0; i < n; ++i) items.push_back(state.logs[state.logs.size() - 1 - i]);
  return Reply::Ok({{"items", std::move(items)}, {"total", state.logs.size()}});
}

}  // namespace

void RegisterLogRoutes(Router& router) {
  RouteInfo ingest{"logs.ingest", "/v1/logs/ingest"};
  ingest.cost_usd = 0.00001;
  router.Post("/v1/logs/ingest", ingest, Ingest);
  router.Get("/v1/logs/search", RouteInfo{"logs.search", "/v1/logs/search"}, Search);
}

}  // namespace quell::sim
