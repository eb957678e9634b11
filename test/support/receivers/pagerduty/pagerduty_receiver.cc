#include "pagerduty_receiver.h"

#include <nlohmann/json.hpp>

namespace quell::testing {
namespace {

using nlohmann::json;

void Invalid(httplib::Response& res, const std::string& why) {
  res.status = 400;
  const json body = {
      {"status", "invalid event"}, {"message", "Event object is invalid"}, {"errors", {why}}};
  res.set_content(body.dump(), "application/json");
}

std::string StringField(const json& j, const char* name) {
  return j.is_object() && j.contains(name) && j[name].is_string() ? j[name].get<std::string>()
                                                                  : std::string();
}

}  // namespace

PagerDutyReceiver::PagerDutyReceiver(const std::string& routing_key) {
  server().Post(
      "/v2/enqueue", [this, routing_key](const httplib::Request& req, httplib::Response& res) {
        const json body = json::parse(req.body, nullptr, false);
        const bool authorized = StringField(body, "routing_key") == routing_key;
        const std::string action = StringField(body, "event_action");
        const std::string dedup_key = StringField(body, "dedup_key");
        const Admission admission =
            Admit(req, res, dedup_key.empty() ? "" : dedup_key + "|" + action, authorized);
        const bool duplicate = admission.duplicate;
        const HangAtExit hang(*this, admission.hang);
        if (!admission.answer) {
          if (!authorized) Invalid(res, "Invalid routing key");
          return;
        }
        PagerDutyEvent event{action, dedup_key, "", "", ""};
        if (action == "trigger") {
          const json payload = body.value("payload", json::object());
          event.summary = StringField(payload, "summary");
          event.severity = StringField(payload, "severity");
          event.source = StringField(payload, "source");
          if (event.summary.empty()) return Invalid(res, "'payload.summary' is missing or blank");
          if (event.summary.size() > 1024) return Invalid(res, "'payload.summary' is too long");
          if (event.source.empty()) return Invalid(res, "'payload.source' is missing or blank");
          if (event.severity != "critical" && event.severity != "error" &&
              event.severity != "warning" && event.severity != "info") {
            return Invalid(res, "'payload.severity' is invalid");
          }
        } else if (action != "resolve" && action != "acknowledge") {
          return Invalid(res, "'event_action' is invalid");
        }
        if (action != "trigger" && dedup_key.empty()) return Invalid(res, "'dedup_key' is missing");
        {
          const std::lock_guard<std::mutex> lock(mu_);
          if (!duplicate) {
            events_.push_back(event);
            alerts_[dedup_key] = action == "trigger" ? "triggered" : action + "d";
          }
        }
        res.status = 202;
        res.set_content(
            json{{"status", "success"}, {"message", "Event processed"}, {"dedup_key", dedup_key}}
                .dump(),
            "application/json");
      });
  Start();
}

std::vector<PagerDutyEvent> PagerDutyReceiver::Events() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return events_;
}

std::map<std::string, std::string> PagerDutyReceiver::Alerts() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return alerts_;
}

void PagerDutyReceiver::WriteFault(Fault fault, httplib::Response& res) {
  const json body = {{"status", fault == Fault::kStatus429 ? "throttle event" : "error"},
                     {"message", fault == Fault::kStatus429 ? "Requests for this service are "
                                                              "arriving too quickly."
                                                            : "Internal error"}};
  res.set_content(body.dump(), "application/json");
}

}  // namespace quell::testing
