#include "opsgenie_receiver.h"

#include <cstdio>
#include <exception>
#include <nlohmann/json.hpp>
#include <utility>

namespace quell::testing {
namespace {

using nlohmann::json;

// Characters as Opsgenie counts them (code points), by the UTF-8 lead bytes.
size_t Chars(const std::string& text) {
  size_t chars = 0;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++chars;
  }
  return chars;
}

std::string StringField(const json& j, const char* name) {
  return j.is_object() && j.contains(name) && j[name].is_string() ? j[name].get<std::string>()
                                                                  : std::string();
}

// Opsgenie's error shape: {"message": ..., "took": ..., "requestId": ...}, plus "errors" with
// one entry per refused field for a 422.
void Refuse(httplib::Response& res, int status, const std::string& message,
            const json& errors = nullptr) {
  res.status = status;
  json body = {{"message", message}, {"took", 0.001}, {"requestId", "refused-request"}};
  if (!errors.is_null()) body["errors"] = errors;
  res.set_content(body.dump(), "application/json");
}

// The first documented limit a create breaks: {field: why}, or null.
json CreateErrors(const json& body) {
  const auto too_long = [&](const char* field, size_t limit) {
    return body.contains(field) &&
           (!body[field].is_string() || Chars(body[field].get<std::string>()) > limit);
  };
  const std::string message = StringField(body, "message");
  if (message.empty()) return {{"message", "Message can not be empty."}};
  if (Chars(message) > 130) return {{"message", "Message can not be longer than 130 characters."}};
  if (too_long("alias", 512)) return {{"alias", "Alias can not be longer than 512 characters."}};
  if (too_long("description", 15000)) {
    return {{"description", "Description can not be longer than 15000 characters."}};
  }
  if (too_long("entity", 512)) return {{"entity", "Entity can not be longer than 512 characters."}};
  if (too_long("source", 100)) return {{"source", "Source can not be longer than 100 characters."}};
  if (body.contains("priority")) {
    const std::string p = StringField(body, "priority");
    if (p != "P1" && p != "P2" && p != "P3" && p != "P4" && p != "P5") {
      return {{"priority", "Priority should be one of [P1, P2, P3, P4, P5]."}};
    }
  }
  if (body.contains("tags")) {
    if (!body["tags"].is_array() || body["tags"].size() > 20) {
      return {{"tags", "Tags can not be more than 20."}};
    }
    for (const json& tag : body["tags"]) {
      if (!tag.is_string() || Chars(tag.get<std::string>()) > 50) {
        return {{"tags", "Tags can not be longer than 50 characters."}};
      }
    }
  }
  if (body.contains("details")) {
    if (!body["details"].is_object()) return {{"details", "Details should be a map."}};
    size_t total = 0;
    for (const auto& [name, value] : body["details"].items()) {
      if (!value.is_string()) return {{"details", "Detail values should be strings."}};
      total += Chars(name) + Chars(value.get<std::string>());
    }
    if (total > 8000) return {{"details", "Details can not be longer than 8000 characters."}};
  }
  return nullptr;
}

}  // namespace

OpsgenieReceiver::OpsgenieReceiver(std::string api_key) : api_key_(std::move(api_key)) {
  server().Post("/v2/alerts",
                [this](const httplib::Request& req, httplib::Response& res) { Create(req, res); });
  // The identifier is one path segment, percent-encoded by the client; httplib hands the
  // handler the decoded path, so an alias holding '/' still matches here.
  server().Post(R"(/v2/alerts/(.+)/close)",
                [this](const httplib::Request& req, httplib::Response& res) { Close(req, res); });
  // A handler that throws is a bug in this stand-in: say which, instead of a bare 500.
  server().set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
        try {
          std::rethrow_exception(std::move(ep));
        } catch (const std::exception& e) {
          Refuse(res, 500, std::string("stand-in bug: ") + e.what());
        }
      });
  Start();
}

void OpsgenieReceiver::Create(const httplib::Request& req, httplib::Response& res) {
  const bool authorized = req.get_header_value("Authorization") == "GenieKey " + api_key_;
  const json body = json::parse(req.body, nullptr, false);
  const std::string alias = StringField(body, "alias");
  const Admission admission = Admit(req, res, "create|" + alias, authorized);
  const HangAtExit hang(*this, admission.hang);
  if (!admission.answer) {
    if (!authorized) Refuse(res, 401, "Could not authenticate");
    return;
  }
  if (!body.is_object()) return Refuse(res, 400, "Invalid JSON body");
  if (const json errors = CreateErrors(body); !errors.is_null()) {
    return Refuse(res, 422, "Request body is not processable. Please check the errors.", errors);
  }
  std::string request_id;
  {
    const std::lock_guard<std::mutex> lock(mu_);
    OpsgenieAlert* open = nullptr;
    for (OpsgenieAlert& alert : alerts_) {
      if (!alias.empty() && alert.alias == alias && alert.status == "open") open = &alert;
    }
    if (open != nullptr) {
      ++open->count;  // de-duplicated: nothing new, the open alert counts the occurrence
      request_id = Accept({"Create", true, "Alert is de-duplicated", alias});
    } else {
      OpsgenieAlert& alert = alerts_.emplace_back();
      // Without an alias Opsgenie assigns one of its own; the next create never matches it.
      alert.alias = alias.empty() ? "generated-" + std::to_string(alerts_.size()) : alias;
      alert.message = StringField(body, "message");
      alert.description = StringField(body, "description");
      alert.priority = body.contains("priority") ? StringField(body, "priority") : "P3";
      alert.source = StringField(body, "source");
      for (const json& tag : body.value("tags", json::array()))
        alert.tags.push_back(tag.get<std::string>());
      const json details = body.value("details", json::object());
      for (const auto& [name, value] : details.items()) {
        alert.details[name] = value.get<std::string>();
      }
      request_id = Accept({"Create", true, "Created alert", alert.alias});
    }
  }
  res.status = 202;
  res.set_content(
      json{{"result", "Request will be processed"}, {"took", 0.107}, {"requestId", request_id}}
          .dump(),
      "application/json");
}

void OpsgenieReceiver::Close(const httplib::Request& req, httplib::Response& res) {
  const bool authorized = req.get_header_value("Authorization") == "GenieKey " + api_key_;
  const std::string identifier = req.matches[1];
  const std::string type =
      req.has_param("identifierType") ? req.get_param_value("identifierType") : "id";
  const Admission admission = Admit(req, res, "close|" + identifier, authorized);
  const HangAtExit hang(*this, admission.hang);
  if (!admission.answer) {
    if (!authorized) Refuse(res, 401, "Could not authenticate");
    return;
  }
  if (type != "id" && type != "alias" && type != "tiny") {
    return Refuse(res, 422, "Request body is not processable. Please check the errors.",
                  {{"identifierType", "Identifier type should be one of [id, alias, tiny]."}});
  }
  // The body is optional; when present it must be a JSON object.
  const json body = req.body.empty() ? json::object() : json::parse(req.body, nullptr, false);
  if (!body.is_object()) return Refuse(res, 400, "Invalid JSON body");
  std::string request_id;
  {
    const std::lock_guard<std::mutex> lock(mu_);
    OpsgenieAlert* open = nullptr;
    // quell's alerts have no Opsgenie ids here: only an alias identifies one.
    for (OpsgenieAlert& alert : alerts_) {
      if (type == "alias" && alert.alias == identifier && alert.status == "open") open = &alert;
    }
    if (open != nullptr) {
      open->status = "closed";
      open->close_note = StringField(body, "note");
      request_id = Accept({"Close", true, "Closed alert", identifier});
    } else {
      request_id = Accept({"Close", false, "Alert does not exist", identifier});
    }
  }
  res.status = 202;
  res.set_content(
      json{{"result", "Request will be processed"}, {"took", 0.051}, {"requestId", request_id}}
          .dump(),
      "application/json");
}

std::string OpsgenieReceiver::Accept(OpsgenieRequestStatus status) {
  // A UUID's shape, as Opsgenie's request ids have.
  char id[40];
  std::snprintf(id, sizeof id, "00000000-0000-4000-8000-%012d", next_request_++);
  request_status_[id] = std::move(status);
  return id;
}

std::vector<OpsgenieAlert> OpsgenieReceiver::Alerts() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return alerts_;
}

std::optional<OpsgenieAlert> OpsgenieReceiver::AlertByAlias(const std::string& alias) const {
  const std::lock_guard<std::mutex> lock(mu_);
  std::optional<OpsgenieAlert> found;
  for (const OpsgenieAlert& alert : alerts_) {
    if (alert.alias != alias) continue;
    found = alert;
    if (alert.status == "open") break;
  }
  return found;
}

std::optional<OpsgenieRequestStatus> OpsgenieReceiver::RequestStatus(
    const std::string& request_id) const {
  const std::lock_guard<std::mutex> lock(mu_);
  const auto it = request_status_.find(request_id);
  if (it == request_status_.end()) return std::nullopt;
  return it->second;
}

void OpsgenieReceiver::SetThrottle(int period_seconds, bool retry_after) {
  const std::lock_guard<std::mutex> lock(mu_);
  throttle_period_ = period_seconds;
  throttle_retry_after_ = retry_after;
}

void OpsgenieReceiver::WriteFault(Fault fault, httplib::Response& res) {
  if (fault == Fault::kStatus429) {
    int period = 60;
    bool retry_after = true;
    {
      const std::lock_guard<std::mutex> lock(mu_);
      period = throttle_period_;
      retry_after = throttle_retry_after_;
    }
    res.set_header("X-RateLimit-State", "THROTTLED");
    res.set_header("X-RateLimit-Reason", "INTEGRATION");
    res.set_header("X-RateLimit-Period-In-Sec", std::to_string(period));
    if (!retry_after) res.headers.erase("Retry-After");
    Refuse(res, 429,
           "You are making too many requests! To avoid errors, we recommend you limit requests.");
    return;
  }
  Refuse(res, 500, "Internal Server Error");
}

}  // namespace quell::testing
