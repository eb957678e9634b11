// The /v1/errors/... family (INFRAI.md §1) and its /v1/observability alias for capture.
#include <httplib.h>

#include <cstdio>
#include <limits>
#include <optional>

#include "quell/sim/capture.h"
#include "quell/sim/group_json.h"
#include "quell/sim/group_page.h"
#include "quell/sim/router.h"

namespace quell::sim {
namespace {

using nlohmann::json;

constexpr double kCaptureCostUsd = 0.0001;  // [INF]: some small per-event price

Reply BadArgument(std::string message) {
  return Reply::Fail(400, "INVALID_ARGUMENT", std::move(message));
}

// Cursors are opaque to clients but carry the page number (for page-K faults) and the offset
// into the insertion-ordered store: "p<page>.o<offset>".
std::string MakeCursor(int64_t page, size_t offset) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "p%lld.o%zu", static_cast<long long>(page), offset);
  return buf;
}

bool ParseCursor(const std::string& cursor, int64_t& page, size_t& offset) {
  long long p = 0;
  unsigned long long o = 0;
  char tail = 0;
  if (std::sscanf(cursor.c_str(), "p%lld.o%llu%c", &p, &o, &tail) != 2 || p < 2) return false;
  page = p;
  offset = static_cast<size_t>(o);
  return true;
}

bool ParseSize(const std::string& text, size_t& out) {
  if (text.empty() || text.size() > 9) return false;
  size_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<size_t>(c - '0');
  }
  out = v;
  return true;
}

Reply ListGroups(const httplib::Request& req, SimState& state, bool search) {
  GroupFilter filter;
  if (search) {
    filter.q = req.get_param_value("q");
    filter.status = req.get_param_value("status");
    filter.level = req.get_param_value("level");
    filter.environment = req.get_param_value("environment");
    if (!filter.status.empty() && filter.status != "unresolved" && filter.status != "resolved" &&
        filter.status != "all") {
      return BadArgument("status must be unresolved, resolved or all");
    }
    if (const std::string since = req.get_param_value("since"); !since.empty()) {
      // An RFC 3339 instant, or a duration back from now ("1h").
      if (auto t = core::ParseRfc3339(since); t.ok()) {
        filter.since = *t;
      } else if (auto d = core::ParseDuration(since); d.ok()) {
        filter.since = state.clock.Now() - *d;
      } else {
        return BadArgument("since must be an RFC 3339 time or a duration like 1h");
      }
    }
  }
  size_t limit = state.config.page_size;
  if (req.has_param("limit")) {
    if (!ParseSize(req.get_param_value("limit"), limit) || limit == 0) {
      return BadArgument("limit must be a positive integer");
    }
  }
  if (state.config.max_page_size > 0 && (limit == 0 || limit > state.config.max_page_size)) {
    limit = state.config.max_page_size;
  }
  if (limit == 0) limit = std::numeric_limits<size_t>::max();
  int64_t page = 1;
  size_t offset = 0;
  if (req.has_param("cursor") && !ParseCursor(req.get_param_value("cursor"), page, offset)) {
    return BadArgument("cursor is not one this server issued");
  }
  ListPage listed = state.store.List(filter, offset, limit);
  std::optional<std::string> cursor;
  if (listed.next_offset) cursor = MakeCursor(page + 1, *listed.next_offset);
  if (auto text = GroupPageJson(listed.groups, cursor)) return Reply::OkText(std::move(*text));
  // Invalid UTF-8 in a group: the json path reports it the way it always has.
  json groups = json::array();
  for (const Group* g : listed.groups) groups.push_back(GroupToJson(*g));
  json data = {{"groups", std::move(groups)}};
  data["next_cursor"] =
      listed.next_offset ? json(MakeCursor(page + 1, *listed.next_offset)) : json(nullptr);
  return Reply::Ok(std::move(data));
}

Reply GroupDetail(const httplib::Request& req, SimState& state) {
  const std::string id = req.matches[1];
  const Group* g = state.store.Find(id);
  if (g == nullptr) return Reply::Fail(404, "NOT_FOUND", "no error group \"" + id + "\"");
  return Reply::Ok(GroupDetailToJson(*g, state.config.detail_events));
}

Reply Resolve(const httplib::Request& req, SimState& state) {
  const std::string id = req.matches[1];
  if (!state.store.Resolve(id, state.clock.Now())) {
    return Reply::Fail(404, "NOT_FOUND", "no error group \"" + id + "\"");
  }
  const Group* g = state.store.Find(id);
  return Reply::Ok({{"error_group_id", id},
                    {"status", "resolved"},
                    {"resolved_at", core::FormatRfc3339(*g->resolved_at)}});
}

Reply CaptureRoute(const httplib::Request& req, SimState& state, bool message_route) {
  json body = json::parse(req.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    return BadArgument("the body must be a JSON object");
  }
  if (message_route) {
    if (!body.contains("text") || !body["text"].is_string()) {
      return BadArgument("text is required");
    }
    if (!body.contains("level")) body["level"] = "info";  // [INF] a message is not an error
  }
  auto out = Capture(state.store, body, state.clock.Now());
  if (!out.ok()) return BadArgument(out.error().message);
  // The doc names error_id; the samples read event_id and error_group_id [DOC S1, SEC].
  return Reply::Ok({{"error_id", out->event_id},
                    {"event_id", out->event_id},
                    {"error_group_id", out->error_group_id}});
}

RouteInfo Info(std::string capability, std::string templ, bool poll = false, double cost = 0) {
  RouteInfo info;
  info.capability = std::move(capability);
  info.templ = std::move(templ);
  info.poll = poll;
  info.cost_usd = cost;
  return info;
}

}  // namespace

void RegisterErrorRoutes(Router& router) {
  auto list = [](const httplib::Request& req, SimState& s) { return ListGroups(req, s, false); };
  router.Get("/v1/errors/groups", Info("errors.groups", "/v1/errors/groups", true), list);
  router.Get("/v1/errors/list", Info("errors.list", "/v1/errors/list", true), list);
  router.Get("/v1/errors/search", Info("errors.search", "/v1/errors/search", true),
             [](const httplib::Request& req, SimState& s) { return ListGroups(req, s, true); });
  router.Get(R"(/v1/errors/group_detail/([^/]+))",
             Info("errors.group_detail", "/v1/errors/group_detail/{error_group_id}"), GroupDetail);
  router.Post(R"(/v1/errors/resolve/([^/]+))",
              Info("errors.resolve", "/v1/errors/resolve/{error_group_id}"), Resolve);
  auto capture = [](const httplib::Request& req, SimState& s) {
    return CaptureRoute(req, s, false);
  };
  router.Post("/v1/errors/capture",
              Info("errors.capture", "/v1/errors/capture", false, kCaptureCostUsd), capture);
  router.Post("/v1/observability/error/capture",
              Info("observability.error.capture", "/v1/observability/error/capture", false,
                   kCaptureCostUsd),
              capture);
  router.Post("/v1/errors/message",
              Info("errors.message", "/v1/errors/message", false, kCaptureCostUsd),
              [](const httplib::Request& req, SimState& s) { return CaptureRoute(req, s, true); });
}

}  // namespace quell::sim
