#include "quell/adapters/http_server/maintenance_routes.h"

#include <charconv>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "quell/adapters/text_output/maintenance_json.h"

namespace quell::http_server {
namespace {

using nlohmann::json;

app::OpsResponse Error(int status, const char* code, const std::string& message) {
  app::OpsResponse response;
  response.status = status;
  response.body = json{{"error", {{"code", code}, {"message", message}}}}.dump();
  return response;
}

app::OpsResponse ErrorOf(const core::Error& error) {
  switch (error.code) {
    case core::ErrorCode::kInvalidArgument:
      return Error(400, "bad_request", error.message);
    case core::ErrorCode::kNotFound:
      return Error(404, "not_found", error.message);
    case core::ErrorCode::kConflict:
      return Error(409, "conflict", error.message);
    case core::ErrorCode::kUnavailable:
    case core::ErrorCode::kTimeout:
      return Error(503, "unavailable", error.message);
    default:
      return Error(500, "internal", error.message);
  }
}

// The request a POST /v1/maintenance body describes; kInvalidArgument naming a bad field.
core::Result<app::OneOffRequest> RequestFrom(const json& body, const std::string& actor) {
  auto bad = [](const std::string& m) {
    return core::MakeError(core::ErrorCode::kInvalidArgument, m);
  };
  if (!body.is_object()) return bad("the body must be a JSON object");
  app::OneOffRequest r;
  auto text = [&](const char* name, std::string& out) -> core::Status {
    auto it = body.find(name);
    if (it == body.end()) return {};
    if (!it->is_string()) return bad(std::string(name) + ": must be a string");
    out = it->get<std::string>();
    return {};
  };
  auto time = [&](const char* name, std::optional<core::WallTime>& out) -> core::Status {
    std::string value;
    if (auto s = text(name, value); !s) return s;
    if (!body.contains(name)) return {};
    auto parsed = core::ParseRfc3339(value);
    if (!parsed) return bad(std::string(name) + ": " + parsed.error().message);
    out = *parsed;
    return {};
  };
  std::string for_text;
  r.by = actor;
  for (const auto& s :
       {text("name", r.name), text("keys", r.keys), text("reason", r.reason), text("by", r.by),
        text("for", for_text), time("starts_at", r.starts_at), time("ends_at", r.ends_at)}) {
    if (!s) return s.error();
  }
  if (body.contains("for")) {
    auto duration = core::ParseDuration(for_text);
    if (!duration) return bad("for: " + duration.error().message);
    r.duration = *duration;
  }
  if (auto it = body.find("labels"); it != body.end()) {
    if (!it->is_object()) return bad("labels: must be an object of strings");
    for (const auto& [name, value] : it->items()) {
      if (!value.is_string()) return bad("labels: \"" + name + "\" must be a string");
      r.labels.emplace_back(name, value.get<std::string>());
    }
  }
  return r;
}

// One http.write audit line for a maintenance write.
void Audit(core::EventLog* log, const char* action, const std::string& key,
           const app::OpsRequest& request, const app::OpsResponse& response) {
  if (log == nullptr) return;
  const int status = response.status;
  log->Log(status < 400 ? core::LogLevel::kInfo : core::LogLevel::kWarn, "http.write",
           {{"action", action}, {"key", key}, {"who", request.actor}, {"status", status}});
}

}  // namespace

std::vector<app::OpsRoute> MaintenanceRoutes(const MaintenanceListing& listing,
                                             const core::ZoneRules& zones, core::Clock& clock,
                                             app::OneOffMaintenance* one_off, core::EventLog* log) {
  app::OpsHandler list = [&listing, &zones, &clock, one_off](const app::OpsRequest&) {
    const std::shared_ptr<const std::vector<core::MaintenanceWindow>> configured = listing.Get();
    const core::WallTime now = clock.Now();
    app::OpsResponse response;
    // The writer's objects verbatim, so the fields come in the CLI's order.
    std::string listed;
    for (const core::MaintenanceWindow& window : *configured) {
      auto object = text_output::MaintenanceWindowJson(window, zones, now);
      if (!object) {
        response.status = 500;
        response.body = nlohmann::json{{"error",
                                        {{"code", "internal"},
                                         {"message", window.name + ": " + object.error().message}}}}
                            .dump();
        return response;
      }
      if (!listed.empty()) listed += ',';
      listed += *object;
    }
    response.body = "{\"windows\":[" + listed + "]";
    if (one_off != nullptr) {
      auto windows = one_off->Listed(now);
      if (!windows) return ErrorOf(windows.error());
      response.body += ",\"one_off\":[";
      for (size_t i = 0; i < windows->size(); ++i) {
        if (i > 0) response.body += ',';
        response.body += text_output::OneOffWindowJson((*windows)[i], now);
      }
      response.body += ']';
    }
    response.body += '}';
    return response;
  };
  std::vector<app::OpsRoute> routes;
  routes.push_back(app::OpsRoute{"GET", "^/v1/maintenance$", /*write=*/false, std::move(list)});
  if (one_off == nullptr) return routes;

  app::OpsHandler add = [one_off, &clock, log](const app::OpsRequest& request) {
    json body = json::parse(request.body, nullptr, false);
    auto parsed = body.is_discarded()
                      ? core::Result<app::OneOffRequest>(core::MakeError(
                            core::ErrorCode::kInvalidArgument, "the body is not valid JSON"))
                      : RequestFrom(body, request.actor.empty() ? "http" : request.actor);
    const core::WallTime now = clock.Now();
    app::OpsResponse response;
    if (!parsed) {
      response = ErrorOf(parsed.error());
    } else if (auto window = one_off->Add(*parsed, now); !window) {
      response = ErrorOf(window.error());
    } else {
      response.status = 201;
      response.body = "{\"window\":" + text_output::OneOffWindowJson(*window, now) + "}";
    }
    Audit(log, "maintenance.add", parsed ? parsed->keys : "", request, response);
    return response;
  };
  app::OpsHandler expire = [one_off, &clock, log](const app::OpsRequest& request) {
    const std::string text = request.captures.empty() ? "" : request.captures.front();
    uint64_t id = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
    const core::WallTime now = clock.Now();
    app::OpsResponse response;
    if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
      response = Error(400, "bad_request", "a window id is a number, got \"" + text + "\"");
    } else if (auto window = one_off->Expire(id, now); !window) {
      response = ErrorOf(window.error());
    } else {
      response.body = "{\"window\":" + text_output::OneOffWindowJson(*window, now) + "}";
    }
    Audit(log, "maintenance.expire", text, request, response);
    return response;
  };
  routes.push_back(app::OpsRoute{"POST", "^/v1/maintenance$", /*write=*/true, std::move(add)});
  routes.push_back(
      app::OpsRoute{"POST", "^/v1/maintenance/([^/]+)/expire$", /*write=*/true, std::move(expire)});
  return routes;
}

}  // namespace quell::http_server
