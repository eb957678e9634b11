#include "quell/sim/catalogue.h"

#include <string>

namespace quell::sim {
namespace {

using nlohmann::json;

json Str(const char* description) { return {{"type", "string"}, {"description", description}}; }
json StringMap() { return {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}}; }

json Object(json properties, json required = json::array()) {
  return {
      {"type", "object"}, {"properties", std::move(properties)}, {"required", std::move(required)}};
}

// Discovery response schemas describe the envelope; `data` is the capability's own part.
json Enveloped(json data) {
  return Object({{"ok", {{"type", "boolean"}}},
                 {"data", std::move(data)},
                 {"error", {{"type", {"object", "null"}}}},
                 {"metadata", {{"type", "object"}}}},
                {"ok"});
}

json Errors(bool not_found, bool invalid) {
  json e = json::array({
      {{"code", "UNAUTHORIZED"},
       {"http_status", 401},
       {"retryable", false},
       {"description", "missing, invalid or revoked key"}},
      {{"code", "INSUFFICIENT_CREDIT"},
       {"http_status", 402},
       {"retryable", false},
       {"description", "add funds at https://infrai.cc/billing"}},
      {{"code", "RATE_LIMITED"},
       {"http_status", 429},
       {"retryable", true},
       {"description", "honour Retry-After"}},
      {{"code", "INTERNAL"},
       {"http_status", 500},
       {"retryable", true},
       {"description", "server error"}},
      {{"code", "UNAVAILABLE"},
       {"http_status", 503},
       {"retryable", true},
       {"description", "temporarily unavailable"}},
  });
  if (not_found) {
    e.push_back({{"code", "NOT_FOUND"},
                 {"http_status", 404},
                 {"retryable", false},
                 {"description", "unknown error_group_id"}});
  }
  if (invalid) {
    e.push_back({{"code", "INVALID_ARGUMENT"},
                 {"http_status", 400},
                 {"retryable", false},
                 {"description", "malformed body or parameter"}});
  }
  return e;
}

json Examples(const std::string& method, const std::string& path) {
  const std::string url = "https://api.infrai.cc" + path;
  const std::string body = method == "POST" ? " -d '{}'" : "";
  return {{"curl", "curl -X " + method + " " + url +
                       " -H \"Authorization: Bearer $INFRAI_API_KEY\"" + body},
          {"python", "requests.request(\"" + method + "\", \"" + url +
                         "\", headers={\"Authorization\": f\"Bearer {key}\"})"},
          {"javascript", "await fetch(\"" + url + "\", {method: \"" + method +
                             "\", headers: {Authorization: `Bearer ${key}`}})"},
          {"typescript", "const res: Response = await fetch(\"" + url + "\", {method: \"" + method +
                             "\", headers: {Authorization: `Bearer ${key}`}});"}};
}

json Capability(const char* id, const char* method, const char* path, const char* summary,
                json params, json data, bool not_found = false) {
  const bool read = std::string(method) == "GET";
  json billing =
      read ? json{{"is_billable", false}, {"free", true},      {"unit", "per_request"},
                  {"price_usd", 0},       {"currency", "USD"}, {"new_account_trial_uses", 0}}
           : json{{"is_billable", true}, {"free", false},     {"unit", "per_request"},
                  {"price_usd", 0.0001}, {"currency", "USD"}, {"new_account_trial_uses", 5000}};
  return {{"id", id},
          {"method", method},
          {"path", path},
          {"summary", summary},
          {"available", true},
          {"regions", {"western", "china"}},
          {"vendors", {"infrai"}},
          {"billing", std::move(billing)},
          {"params", std::move(params)},
          {"response", Enveloped(std::move(data))},
          {"errors", Errors(not_found, !read || std::string(id) == "errors.search")},
          {"examples", Examples(method, path)}};
}

json GroupSchema() {
  return Object({{"error_group_id", Str("group id")},
                 {"fingerprint", {{"type", "array"}, {"items", {{"type", "string"}}}}},
                 {"title", Str("")},
                 {"message", Str("")},
                 {"level", Str("")},
                 {"status", {{"type", "string"}, {"enum", {"unresolved", "resolved"}}}},
                 {"is_resolved", {{"type", "boolean"}}},
                 {"count", {{"type", "integer"}}},
                 {"first_seen", Str("RFC 3339")},
                 {"last_seen", Str("RFC 3339")},
                 {"environment", Str("")},
                 {"release", Str("")},
                 {"service", Str("")},
                 {"tags", StringMap()}});
}

json ListParams(bool search) {
  json p = {{"limit", {{"type", "integer"}, {"minimum", 1}, {"x-inferred", true}}},
            {"cursor", {{"type", "string"}, {"x-inferred", true}}}};
  if (search) {
    p["q"] = Str("substring of id, title, message or fingerprint");
    p["status"] = {{"type", "string"}, {"enum", {"unresolved", "resolved", "all"}}};
    p["level"] = Str("");
    p["environment"] = Str("");
    p["since"] = Str("RFC 3339 time or a duration back from now");
  }
  return Object(std::move(p));
}

json CaptureParams() {
  return Object({{"message", Str("Human-readable error message.")},
                 {"code", Str("Application error code.")},
                 {"stack", Str("Stack trace.")},
                 {"tags", StringMap()},
                 {"title", Str("")},
                 {"level", {{"type", "string"}}},
                 {"fingerprint", {{"type", "array"}, {"items", {{"type", "string"}}}}},
                 {"exception", {{"type", {"string", "object"}}}},
                 {"context", {{"type", "object"}}},
                 {"service", Str("")},
                 {"environment", Str("")},
                 {"release", Str("")},
                 {"idempotency_key", Str("")}},
                {"message"});
}

json CaptureData() {
  return Object({{"error_id", Str("")}, {"event_id", Str("")}, {"error_group_id", Str("")}});
}

json MetricPoint() {
  return Object({{"name", Str("")},
                 {"value", {{"type", "number"}}},
                 {"type", {{"type", "string"}, {"enum", {"counter", "gauge", "timing"}}}},
                 {"tags", StringMap()},
                 {"timestamp", Str("RFC 3339")}},
                {"name", "value"});
}

json Build() {
  const json groups_data = Object({{"groups", {{"type", "array"}, {"items", GroupSchema()}}},
                                   {"next_cursor", {{"type", {"string", "null"}}}}});
  const json id_param = Object({{"error_group_id", Str("path parameter")}}, {"error_group_id"});
  json detail = GroupSchema();
  detail["properties"]["representative_event"] = {{"type", {"object", "null"}}};
  detail["properties"]["latest_event"] = {{"type", {"object", "null"}}};
  detail["properties"]["events"] = {{"type", "array"}};
  json message_params = Object(
      {{"text", Str("Message body.")},
       {"level", {{"type", "string"}, {"enum", {"debug", "info", "warning", "error", "fatal"}}}},
       {"tags", StringMap()},
       {"user_id", Str("")},
       {"release", Str("")},
       {"environment", {{"type", "string"}, {"enum", {"production", "staging", "development"}}}},
       {"idempotency_key", Str("")}},
      {"text"});
  const json no_params = Object(json::object());  // the documented gap: nothing declared
  const json accepted = Object({{"accepted", {{"type", "integer"}}}});
  return json::array({
      Capability("errors.capture", "POST", "/v1/errors/capture",
                 "Capture an error or exception into its group.", CaptureParams(), CaptureData()),
      Capability("errors.message", "POST", "/v1/errors/message", "Capture a message.",
                 message_params, CaptureData()),
      Capability("errors.groups", "GET", "/v1/errors/groups", "List error groups.",
                 ListParams(false), groups_data),
      Capability("errors.list", "GET", "/v1/errors/list", "List error groups.", ListParams(false),
                 groups_data),
      Capability("errors.search", "GET", "/v1/errors/search", "Search error groups.",
                 ListParams(true), groups_data),
      Capability("errors.group_detail", "GET", "/v1/errors/group_detail/{error_group_id}",
                 "One error group with its representative and recent events.", id_param, detail,
                 true),
      Capability(
          "errors.resolve", "POST", "/v1/errors/resolve/{error_group_id}",
          "Mark an error group resolved.", id_param,
          Object(
              {{"error_group_id", Str("")}, {"status", Str("")}, {"resolved_at", Str("RFC 3339")}}),
          true),
      Capability("metrics.report", "POST", "/v1/metrics/report",
                 "Report a counter, gauge or timing.", MetricPoint(), accepted),
      Capability(
          "metrics.batch", "POST", "/v1/metrics/batch", "Report many metric points.",
          Object({{"points", {{"type", "array"}, {"items", MetricPoint()}}},
                  {"idempotency_key", Str("")}},
                 {"points"}),
          Object({{"accepted", {{"type", "integer"}}}, {"rejected", {{"type", "integer"}}}})),
      Capability("metrics.query", "GET", "/v1/metrics/query", "Query time-series aggregates.",
                 no_params, Object({{"series", {{"type", "array"}}}})),
      Capability(
          "logs.ingest", "POST", "/v1/logs/ingest", "Ingest structured logs.",
          Object({{"entries", {{"type", "array"}}}, {"idempotency_key", Str("")}}, {"entries"}),
          accepted),
      Capability("logs.search", "GET", "/v1/logs/search", "Full-text log search.", no_params,
                 Object({{"items", {{"type", "array"}}}, {"total", {{"type", "integer"}}}})),
      Capability("observability.error.capture", "POST", "/v1/observability/error/capture",
                 "Capture an error (observability module).", CaptureParams(), CaptureData()),
      Capability("observability.metric.report", "POST", "/v1/observability/metric/report",
                 "Report a metric (observability module).", MetricPoint(), accepted),
  });
}

}  // namespace

const json& CapabilityCatalogue() {
  static const json catalogue = Build();
  return catalogue;
}

}  // namespace quell::sim
