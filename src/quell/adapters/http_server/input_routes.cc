#include "quell/adapters/http_server/input_routes.h"

#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "quell/adapters/inputs/alertmanager_payload.h"
#include "quell/adapters/inputs/datadog_payload.h"
#include "quell/adapters/inputs/observation_body.h"

namespace quell::http_server {
namespace {

using nlohmann::json;

// How long a sender should wait before retrying a request the store could not take.
constexpr const char* kRetryAfterSeconds = "5";

app::OpsResponse Error(int status, const char* code, const std::string& message) {
  app::OpsResponse response;
  response.status = status;
  response.body = json{{"error", {{"code", code}, {"message", message}}}}.dump();
  return response;
}

app::OpsResponse ErrorOf(const core::Error& error) {
  switch (error.code) {
    case core::ErrorCode::kInvalidArgument:
      return Error(400, "invalid_argument", error.message);
    case core::ErrorCode::kUnavailable:
    case core::ErrorCode::kTimeout:
    case core::ErrorCode::kConflict: {
      // Nothing was applied and the same request can succeed later: Alertmanager and Grafana
      // retry a 5xx, not a 4xx.
      app::OpsResponse response = Error(503, "unavailable", error.message);
      response.headers.emplace_back("Retry-After", kRetryAfterSeconds);
      return response;
    }
    default:
      return Error(500, "internal", error.message);
  }
}

app::OpsResponse Answer(const app::PushSummary& summary) {
  json decisions = json::array();
  for (const app::PushSummary::Decided& d : summary.decisions) {
    decisions.push_back({{"key", d.key},
                         {"decision", core::DecisionName(d.kind)},
                         {"reason", core::ReasonName(d.reason)}});
  }
  app::OpsResponse response;
  response.body = json{{"poll_id", summary.poll_id},           {"condition", summary.condition},
                       {"observations", summary.observations}, {"changed", summary.changed},
                       {"outbox_rows", summary.outbox_rows},   {"duplicate", summary.duplicate},
                       {"decisions", std::move(decisions)}}
                      .dump(-1, ' ', false, json::error_handler_t::replace);
  return response;
}

// One line per push: what it changed when applied, why not when refused (a sender retrying a
// payload quell refuses is otherwise invisible until someone misses the incident).
app::OpsResponse Logged(core::EventLog* log, const char* route, const app::OpsRequest& request,
                        const core::Result<app::PushSummary>& applied, app::OpsResponse response) {
  if (log == nullptr) return response;
  if (applied) {
    log->Log(core::LogLevel::kInfo, "input.applied",
             {{"route", route},
              {"condition", applied->condition},
              {"poll_id", applied->poll_id},
              {"observations", applied->observations},
              {"changed", applied->changed},
              {"outbox_rows", applied->outbox_rows},
              {"duplicate", applied->duplicate},
              {"who", request.actor}});
  } else {
    log->Log(core::LogLevel::kWarn, "input.refused",
             {{"route", route},
              {"status", response.status},
              {"error", applied.error().message},
              {"who", request.actor}});
  }
  return response;
}

std::string QueryValue(const app::OpsRequest& request, const char* name) {
  const auto it = request.query.find(name);
  return it == request.query.end() ? std::string() : it->second;
}

}  // namespace

std::vector<app::OpsRoute> InputRoutes(app::PushInput& input,
                                       const app::Latest<app::PushSettings>& settings,
                                       core::Clock& clock, core::EventLog* log) {
  app::OpsHandler alertmanager = [&input, &settings, log](const app::OpsRequest& request) {
    constexpr const char* kRoute = "alertmanager";
    inputs::AlertPayloadOptions options;
    options.limits = settings.Get()->limits;
    auto alerts = inputs::ParseAlertmanagerPayload(request.body, options);
    if (!alerts) {
      return Logged(log, kRoute, request, alerts.error(), ErrorOf(alerts.error()));
    }
    auto applied = input.ApplyAlerts(QueryValue(request, "condition"), *alerts);
    return Logged(log, kRoute, request, applied,
                  applied ? Answer(*applied) : ErrorOf(applied.error()));
  };
  app::OpsHandler datadog = [&input, &settings, log](const app::OpsRequest& request) {
    constexpr const char* kRoute = "datadog";
    inputs::DatadogPayloadOptions options;
    options.limits = settings.Get()->limits;
    auto alerts = inputs::ParseDatadogPayload(request.body, options);
    if (!alerts) {
      return Logged(log, kRoute, request, alerts.error(), ErrorOf(alerts.error()));
    }
    auto applied = input.ApplyAlerts(QueryValue(request, "condition"), *alerts);
    return Logged(log, kRoute, request, applied,
                  applied ? Answer(*applied) : ErrorOf(applied.error()));
  };
  app::OpsHandler observations = [&input, &settings, &clock, log](const app::OpsRequest& request) {
    constexpr const char* kRoute = "observations";
    inputs::ObservationBodyOptions options;
    options.parser.limits = settings.Get()->limits;
    options.parser.require_key = false;
    options.parser.now = clock.Now();
    auto parsed = inputs::ParseObservationBody(request.body, options);
    if (!parsed) {
      return Logged(log, kRoute, request, parsed.error(), ErrorOf(parsed.error()));
    }
    auto applied = input.ApplyObservations(std::move(*parsed), QueryValue(request, "poll_id"));
    return Logged(log, kRoute, request, applied,
                  applied ? Answer(*applied) : ErrorOf(applied.error()));
  };
  std::vector<app::OpsRoute> routes;
  routes.push_back(
      app::OpsRoute{"POST", "^/v1/inputs/alertmanager$", /*write=*/true, std::move(alertmanager)});
  routes.push_back(
      app::OpsRoute{"POST", "^/v1/inputs/datadog$", /*write=*/true, std::move(datadog)});
  routes.push_back(
      app::OpsRoute{"POST", "^/v1/observations$", /*write=*/true, std::move(observations)});
  return routes;
}

}  // namespace quell::http_server
