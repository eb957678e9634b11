#include "quell/adapters/inputs/alertmanager_payload.h"

#include <simdjson.h>

#include <algorithm>
#include <string>
#include <utility>

#include "quell/core/redact/redact_label.h"
#include "quell/core/text/json_escape.h"
#include "quell/core/text/time.h"

// The payload's shape is the one documented for Alertmanager's webhook receiver
// (https://prometheus.io/docs/alerting/latest/configuration/#webhook_config: version "4",
// receiver, status, alerts[{status, labels, annotations, startsAt, endsAt, generatorURL,
// fingerprint}], groupLabels, commonLabels, commonAnnotations, externalURL, groupKey,
// truncatedAlerts) and for Grafana's webhook contact point
// (https://grafana.com/docs/grafana/latest/alerting/configure-notifications/manage-contact-points/integrations/webhook-notifier/:
// the same, plus orgId, title, state, message and per alert silenceURL, dashboardURL, panelURL,
// values or valueString, which are ignored).

namespace quell::inputs {
namespace {

// Go's zero time.Time: Alertmanager's "not set" for startsAt and endsAt.
constexpr std::string_view kZeroTime = "0001-01-01T00:00:00Z";

core::Error Invalid(const std::string& field, std::string_view problem) {
  return core::MakeError(core::ErrorCode::kInvalidArgument, field + ": " + std::string(problem));
}

// An object of strings (labels, annotations) into sorted pairs; `field` names it in errors.
core::Status ReadStrings(simdjson::dom::element value, const std::string& field,
                         core::Labels& out) {
  simdjson::dom::object object;
  if (value.get_object().get(object)) return Invalid(field, "must be an object of strings");
  for (auto [name, member] : object) {
    std::string_view text;
    if (member.get_string().get(text)) {
      return Invalid(field + "." + std::string(name), "must be a string");
    }
    out.emplace_back(std::string(name), std::string(text));
  }
  std::sort(out.begin(), out.end());
  for (size_t i = 1; i < out.size(); ++i) {
    if (out[i].first == out[i - 1].first) {
      return Invalid(field + "." + out[i].first, "appears twice");
    }
  }
  return {};
}

// An optional string field; `field` names it in errors.
core::Status ReadString(simdjson::dom::element value, const std::string& field,
                        std::string_view& out) {
  if (value.get_string().get(out)) return Invalid(field, "must be a string");
  return {};
}

struct AlertFields {
  std::string_view status;
  std::string_view starts_at;
  std::string_view ends_at;
  std::string_view generator_url;
  std::string_view panel_url;      // Grafana's
  std::string_view dashboard_url;  // Grafana's
  std::string_view fingerprint;
  bool has_status = false;
  bool has_labels = false;
};

// The evidence kept of one alert: what a reader of the incident needs to find it at its
// source, every free text redacted as poll evidence is.
std::string Evidence(const core::PushedAlert& alert, const AlertFields& fields,
                     const AlertPayloadOptions& options) {
  std::string out = "{\"annotations\":{";
  bool first = true;
  for (const auto& [name, value] : alert.annotations) {
    if (!first) out.push_back(',');
    first = false;
    core::AppendJsonString(out, name);
    out.push_back(':');
    core::AppendJsonString(out, core::LooksSecretKey(name) ? std::string("[secret]")
                                                           : core::Redact(value, options.redact));
  }
  out += "}";
  const auto add = [&](std::string_view name, std::string_view value, bool redact) {
    if (value.empty()) return;
    out.push_back(',');
    core::AppendJsonString(out, name);
    out.push_back(':');
    core::AppendJsonString(out, redact ? core::Redact(value, options.redact) : std::string(value));
  };
  add("generatorURL", fields.generator_url, true);
  add("panelURL", fields.panel_url, true);
  add("dashboardURL", fields.dashboard_url, true);
  add("startsAt", fields.starts_at, true);
  add("endsAt", fields.ends_at, true);
  add("fingerprint", fields.fingerprint, true);
  add("status", fields.status, false);
  out.push_back('}');
  return out;
}

core::Status ReadAlert(simdjson::dom::element element, size_t index,
                       const AlertPayloadOptions& options, core::PushedAlert& alert) {
  const std::string at = "alerts[" + std::to_string(index) + "]";
  simdjson::dom::object object;
  if (element.get_object().get(object)) return Invalid(at, "must be an object");
  AlertFields fields;
  for (auto [name, value] : object) {
    if (name == "status") {
      if (auto status = ReadString(value, at + ".status", fields.status); !status) return status;
      if (fields.status != "firing" && fields.status != "resolved") {
        return Invalid(at + ".status", "must be \"firing\" or \"resolved\"");
      }
      fields.has_status = true;
    } else if (name == "labels") {
      alert.labels.clear();
      if (auto status = ReadStrings(value, at + ".labels", alert.labels); !status) return status;
      // Before anything reads them: the key is rendered from, and the incident stores, shows
      // and sends, the redacted labels only.
      core::RedactLabels(alert.labels, options.redact);
      fields.has_labels = true;
    } else if (name == "annotations") {
      alert.annotations.clear();
      if (auto status = ReadStrings(value, at + ".annotations", alert.annotations); !status) {
        return status;
      }
    } else if (name == "startsAt") {
      if (auto status = ReadString(value, at + ".startsAt", fields.starts_at); !status) {
        return status;
      }
    } else if (name == "endsAt") {
      if (auto status = ReadString(value, at + ".endsAt", fields.ends_at); !status) return status;
    } else if (name == "generatorURL") {
      if (auto status = ReadString(value, at + ".generatorURL", fields.generator_url); !status) {
        return status;
      }
    } else if (name == "panelURL") {
      if (auto status = ReadString(value, at + ".panelURL", fields.panel_url); !status) {
        return status;
      }
    } else if (name == "dashboardURL") {
      if (auto status = ReadString(value, at + ".dashboardURL", fields.dashboard_url); !status) {
        return status;
      }
    } else if (name == "fingerprint") {
      if (auto status = ReadString(value, at + ".fingerprint", fields.fingerprint); !status) {
        return status;
      }
    }
  }
  if (!fields.has_status) return Invalid(at + ".status", "missing (\"firing\" or \"resolved\")");
  if (!fields.has_labels) return Invalid(at + ".labels", "missing");
  alert.firing = fields.status == "firing";
  alert.starts_at.reset();
  if (!fields.starts_at.empty() && fields.starts_at != kZeroTime) {
    auto starts = core::ParseRfc3339(fields.starts_at);
    if (!starts) return Invalid(at + ".startsAt", starts.error().message);
    alert.starts_at = *starts;
  }
  if (!fields.ends_at.empty() && fields.ends_at != kZeroTime) {
    if (auto ends = core::ParseRfc3339(fields.ends_at); !ends) {
      return Invalid(at + ".endsAt", ends.error().message);
    }
  }
  alert.evidence = Evidence(alert, fields, options);
  if (alert.evidence.size() > options.limits.max_evidence_bytes) {
    return Invalid(at + ".annotations",
                   "the alert's evidence is " + std::to_string(alert.evidence.size()) +
                       " bytes, more than " + std::to_string(options.limits.max_evidence_bytes) +
                       " (limits.evidence_bytes)");
  }
  return {};
}

}  // namespace

core::Result<std::vector<core::PushedAlert>> ParseAlertmanagerPayload(
    std::string_view body, const AlertPayloadOptions& options) {
  const simdjson::padded_string padded(body);
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto error = parser.parse(padded).get(root)) {
    return Invalid("body", std::string("bad JSON: ") + simdjson::error_message(error));
  }
  simdjson::dom::object object;
  if (root.get_object().get(object)) return Invalid("body", "must be a JSON object");
  simdjson::dom::element alerts_value;
  if (object["alerts"].get(alerts_value)) return Invalid("alerts", "missing");
  simdjson::dom::array alerts;
  if (alerts_value.get_array().get(alerts)) return Invalid("alerts", "must be an array");
  if (alerts.size() > options.max_alerts) {
    return Invalid("alerts", "holds " + std::to_string(alerts.size()) + " alerts, more than " +
                                 std::to_string(options.max_alerts) +
                                 " (set max_alerts in the webhook_config)");
  }
  std::vector<core::PushedAlert> out;
  out.reserve(alerts.size());
  size_t index = 0;
  for (const simdjson::dom::element element : alerts) {
    core::PushedAlert& alert = out.emplace_back();
    if (auto status = ReadAlert(element, index, options, alert); !status) return status.error();
    ++index;
  }
  return out;
}

}  // namespace quell::inputs
