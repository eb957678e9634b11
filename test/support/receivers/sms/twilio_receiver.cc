#include "twilio_receiver.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "quell/adapters/channels/sms/twilio_sms_channel.h"

namespace quell::testing {
namespace {

using nlohmann::json;

void Error(httplib::Response& res, int status, int code, const std::string& message) {
  res.status = status;
  const json body = {{"code", code},
                     {"message", message},
                     {"more_info", "https://www.twilio.com/docs/errors/" + std::to_string(code)},
                     {"status", status}};
  res.set_content(body.dump(), "application/json");
}

}  // namespace

TwilioReceiver::TwilioReceiver(const std::string& account_sid, const std::string& auth_token) {
  const std::string path = "/2010-04-01/Accounts/" + account_sid + "/Messages.json";
  const std::string expected = channels::BasicAuthorization(account_sid, auth_token);
  server().Post(path, [this, expected](const httplib::Request& req, httplib::Response& res) {
    const bool authorized = req.get_header_value("Authorization") == expected;
    const std::string token = req.get_header_value("I-Twilio-Idempotency-Token");
    const Admission admission = Admit(req, res, token, authorized);
    const bool duplicate = admission.duplicate;
    const HangAtExit hang(*this, admission.hang);
    if (!admission.answer) {
      if (!authorized) Error(res, 401, 20003, "Authenticate");
      return;
    }
    const std::lock_guard<std::mutex> lock(mu_);
    if (!rejections_.empty()) {
      const Rejection r = rejections_.front();
      rejections_.pop_front();
      return Error(res, r.status, r.code, r.message);
    }
    const std::string to = req.get_param_value("To");
    const std::string from = req.get_param_value("From");
    const std::string body = req.get_param_value("Body");
    if (to.empty()) return Error(res, 400, 21604, "A 'To' phone number is required.");
    if (from.empty()) return Error(res, 400, 21603, "A 'From' phone number is required.");
    if (body.empty()) return Error(res, 400, 21602, "Message body is required.");
    std::string sid;
    if (const auto it = sid_by_token_.find(token); duplicate && it != sid_by_token_.end()) {
      sid = it->second;
    } else {
      char buffer[40];
      std::snprintf(buffer, sizeof buffer, "SM%032zx", messages_.size() + 1);
      sid = buffer;
      messages_.push_back(TwilioMessage{sid, to, from, body, token});
      if (!token.empty()) sid_by_token_[token] = sid;
    }
    res.status = 201;
    res.set_content(
        json{{"sid", sid}, {"status", "queued"}, {"to", to}, {"from", from}, {"body", body}}.dump(),
        "application/json");
  });
  Start();
}

void TwilioReceiver::RejectNext(int code, std::string message, int status) {
  const std::lock_guard<std::mutex> lock(mu_);
  rejections_.push_back(Rejection{code, std::move(message), status});
}

std::vector<TwilioMessage> TwilioReceiver::Messages() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return messages_;
}

void TwilioReceiver::WriteFault(Fault fault, httplib::Response& res) {
  if (fault == Fault::kStatus429) {
    Error(res, 429, 20429, "Too Many Requests");
  } else {
    Error(res, 500, 20500, "Internal Server Error");
  }
}

}  // namespace quell::testing
