#include "google_chat_receiver.h"

#include <nlohmann/json.hpp>

namespace quell::testing {
namespace {

using nlohmann::json;
constexpr const char* kSpace = "spaces/AAAAquell";
// "The maximum message size, including text or cards, is 32,000 bytes."
constexpr size_t kMaxMessageBytes = 32000;

void Error(httplib::Response& res, int code, const std::string& status,
           const std::string& message) {
  res.status = code;
  const json body = {{"error", {{"code", code}, {"message", message}, {"status", status}}}};
  res.set_content(body.dump(), "application/json; charset=UTF-8");
}

json MessageJson(const GoogleChatMessage& m) {
  json thread = {{"name", m.thread_name}};
  if (!m.thread_key.empty()) thread["threadKey"] = m.thread_key;
  return {{"name", m.name},
          {"sender", {{"name", "users/114022495153014004089"}, {"type", "BOT"}}},
          {"text", m.text},
          {"thread", thread},
          {"space", {{"name", kSpace}, {"type", "ROOM"}, {"spaceType", "SPACE"}}},
          {"createTime", "2026-12-04T09:00:00.000000Z"}};
}

}  // namespace

GoogleChatReceiver::GoogleChatReceiver(std::string key, std::string token)
    : key_(std::move(key)), token_(std::move(token)) {
  server().Post("/v1/spaces/AAAAquell/messages", [this](const httplib::Request& req,
                                                        httplib::Response& res) {
    const bool authorized =
        req.get_param_value("key") == key_ && req.get_param_value("token") == token_;
    const std::string request_id = req.get_param_value("requestId");
    const Admission admission = Admit(req, res, request_id, authorized);
    const HangAtExit hang(*this, admission.hang);
    if (!admission.answer) {
      if (!authorized) {
        Error(res, 401, "UNAUTHENTICATED",
              "Request had invalid authentication credentials. Expected OAuth 2 access token, "
              "login cookie or other valid authentication credential.");
      }
      return;
    }
    const json body = json::parse(req.body, nullptr, false);
    if (!body.is_object()) {
      return Error(res, 400, "INVALID_ARGUMENT", "Invalid JSON payload received.");
    }
    const std::lock_guard<std::mutex> lock(mu_);
    if (!request_id.empty()) {
      // Idempotent by requestId: the message made with it, unchanged, and nothing new.
      if (const auto it = messages_by_request_.find(request_id); it != messages_by_request_.end()) {
        res.set_content(MessageJson(messages_[it->second]).dump(), "application/json");
        return;
      }
    }
    const std::string text = body.value("text", std::string());
    if (text.empty() && !body.contains("cardsV2")) {
      return Error(res, 400, "INVALID_ARGUMENT",
                   "Message cannot be empty. Discarding empty message.");
    }
    if (req.body.size() > kMaxMessageBytes) {
      return Error(res, 400, "INVALID_ARGUMENT", "Message too long: it exceeds 32000 bytes.");
    }
    std::string thread_key = req.get_param_value("threadKey");  // deprecated, still honoured
    if (body.contains("thread") && body["thread"].is_object()) {
      thread_key = body["thread"].value("threadKey", thread_key);
    }
    const std::string option = req.get_param_value("messageReplyOption");
    const bool reply =
        option == "REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD" || option == "REPLY_MESSAGE_OR_FAIL";
    if (!option.empty() && !reply && option != "MESSAGE_REPLY_OPTION_UNSPECIFIED") {
      return Error(res, 400, "INVALID_ARGUMENT",
                   "Invalid value at 'message_reply_option' (type.googleapis.com/"
                   "google.chat.v1.CreateMessageRequest.MessageReplyOption), \"" +
                       option + "\"");
    }
    GoogleChatMessage message;
    message.name = std::string(kSpace) + "/messages/m" + std::to_string(messages_.size() + 1);
    message.text = text;
    message.request_id = request_id;
    const auto thread =
        reply && !thread_key.empty() ? threads_by_key_.find(thread_key) : threads_by_key_.end();
    if (thread != threads_by_key_.end()) {
      message.thread_name = thread->second;
    } else {
      message.thread_name =
          std::string(kSpace) + "/threads/t" + std::to_string(threads_by_key_.size() + 1);
      // Without a reply option the key is ignored: the message starts a thread of its own.
      threads_by_key_[reply && !thread_key.empty() ? thread_key
                                                   : "\x01unkeyed:" + message.thread_name] =
          message.thread_name;
    }
    if (reply) message.thread_key = thread_key;
    if (!request_id.empty()) messages_by_request_[request_id] = messages_.size();
    messages_.push_back(message);
    res.set_content(MessageJson(message).dump(), "application/json; charset=UTF-8");
  });
  Start();
}

std::string GoogleChatReceiver::WebhookUrl() const {
  return BaseUrl() + "/v1/spaces/AAAAquell/messages?key=" + key_ + "&token=" + token_;
}

std::vector<GoogleChatMessage> GoogleChatReceiver::Messages() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return messages_;
}

void GoogleChatReceiver::WriteFault(Fault fault, httplib::Response& res) {
  if (fault == Fault::kStatus429) {
    Error(res, 429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota).");
  } else {
    Error(res, 500, "INTERNAL", "Internal error encountered.");
  }
}

}  // namespace quell::testing
