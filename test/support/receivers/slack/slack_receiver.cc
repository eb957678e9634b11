#include "slack_receiver.h"

#include <nlohmann/json.hpp>

namespace quell::testing {
namespace {

using nlohmann::json;

void Answer(httplib::Response& res, const json& body) {
  res.status = 200;
  res.set_content(body.dump(), "application/json");
}

std::string StringField(const json& j, const char* name) {
  return j.is_object() && j.contains(name) && j[name].is_string() ? j[name].get<std::string>()
                                                                  : std::string();
}

}  // namespace

SlackReceiver::SlackReceiver(std::string token) : token_(std::move(token)) {
  server().Post("/services/T0/B0/hook",
                [this](const httplib::Request& req, httplib::Response& res) {
                  const json body = json::parse(req.body, nullptr, false);
                  const Admission admission = Admit(req, res, "", true);
                  const HangAtExit hang(*this, admission.hang);
                  if (!admission.answer) return;
                  if (StringField(body, "text").empty()) {
                    res.status = 400;
                    res.set_content("invalid_payload", "text/plain");
                    return;
                  }
                  {
                    const std::lock_guard<std::mutex> lock(mu_);
                    messages_.push_back(SlackMessage{"", "", "", StringField(body, "text"), "", 0});
                  }
                  res.set_content("ok", "text/plain");
                });
  server().Post(R"(/api/([A-Za-z.]+))", [this](const httplib::Request& req,
                                               httplib::Response& res) {
    const json body = json::parse(req.body, nullptr, false);
    std::string key;
    if (body.is_object() && body.contains("metadata")) {
      key = StringField(body["metadata"].value("event_payload", json::object()), "idempotency_key");
    }
    const bool authorized = req.get_header_value("Authorization") == "Bearer " + token_;
    const Admission admission = Admit(req, res, key, authorized);
    const HangAtExit hang(*this, admission.hang);
    if (!admission.answer) {
      if (!authorized) Answer(res, {{"ok", false}, {"error", "invalid_auth"}});
      return;
    }
    const std::lock_guard<std::mutex> lock(mu_);
    if (!errors_.empty()) {
      Answer(res, {{"ok", false}, {"error", errors_.front()}});
      errors_.pop_front();
      return;
    }
    const std::string method = req.matches[1].str();
    const std::string channel = StringField(body, "channel");
    if (channel.empty()) return Answer(res, {{"ok", false}, {"error", "channel_not_found"}});
    if (StringField(body, "text").empty() && !(body.is_object() && body.contains("blocks"))) {
      return Answer(res, {{"ok", false}, {"error", "no_text"}});
    }
    if (method == "chat.postMessage") {
      char ts[32];
      std::snprintf(ts, sizeof ts, "1700000000.%06zu", messages_.size() + 1);
      messages_.push_back(SlackMessage{channel, ts, StringField(body, "thread_ts"),
                                       StringField(body, "text"), key, 0});
      return Answer(res, {{"ok", true}, {"channel", channel}, {"ts", ts}});
    }
    if (method == "chat.update") {
      const std::string ts = StringField(body, "ts");
      for (SlackMessage& m : messages_) {
        if (m.ts != ts || m.channel != channel) continue;
        m.text = StringField(body, "text");
        ++m.updates;
        return Answer(res, {{"ok", true}, {"channel", channel}, {"ts", ts}});
      }
      return Answer(res, {{"ok", false}, {"error", "message_not_found"}});
    }
    Answer(res, {{"ok", false}, {"error", "unknown_method"}});
  });
  Start();
}

void SlackReceiver::ErrorNext(std::string error) {
  const std::lock_guard<std::mutex> lock(mu_);
  errors_.push_back(std::move(error));
}

std::vector<SlackMessage> SlackReceiver::Messages() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return messages_;
}

void SlackReceiver::WriteFault(Fault fault, httplib::Response& res) {
  const json body = {{"ok", false},
                     {"error", fault == Fault::kStatus429 ? "ratelimited" : "internal_error"}};
  res.set_content(body.dump(), "application/json");
}

}  // namespace quell::testing
