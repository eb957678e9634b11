#include "telegram_receiver.h"

#include <nlohmann/json.hpp>

namespace quell::testing {
namespace {

using nlohmann::json;
constexpr size_t kMaxTextUnits = 4096;

void Fail(httplib::Response& res, int code, const std::string& description) {
  res.status = code;
  const json body = {{"ok", false}, {"error_code", code}, {"description", description}};
  res.set_content(body.dump(), "application/json");
}

// UTF-16 code units, which is how Telegram counts a text's length.
size_t Utf16Units(const std::string& text) {
  size_t units = 0;
  for (const char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if ((b & 0xC0) != 0x80) units += b >= 0xF0 ? 2 : 1;
  }
  return units;
}

std::string ChatIdText(const json& id) {
  if (id.is_string()) return id.get<std::string>();
  if (id.is_number_integer()) return std::to_string(id.get<int64_t>());
  return {};
}

}  // namespace

TelegramReceiver::TelegramReceiver(std::string token, std::string chat_id)
    : token_(std::move(token)), chat_id_(std::move(chat_id)) {
  server().Post(R"(/bot([^/]+)/sendMessage)", [this](const httplib::Request& req,
                                                     httplib::Response& res) {
    const bool authorized = req.matches[1].str() == token_;
    const Admission admission = Admit(req, res, "", authorized);
    const HangAtExit hang(*this, admission.hang);
    if (!admission.answer) {
      if (!authorized) Fail(res, 401, "Unauthorized");
      return;
    }
    const json body = json::parse(req.body, nullptr, false);
    if (!body.is_object()) return Fail(res, 400, "Bad Request: message text is empty");
    const std::string chat = body.contains("chat_id") ? ChatIdText(body["chat_id"]) : "";
    if (chat.empty()) return Fail(res, 400, "Bad Request: chat_id is empty");
    if (chat != chat_id_) return Fail(res, 400, "Bad Request: chat not found");
    const std::string text =
        body.contains("text") && body["text"].is_string() ? body["text"].get<std::string>() : "";
    if (text.empty()) return Fail(res, 400, "Bad Request: message text is empty");
    if (Utf16Units(text) > kMaxTextUnits) return Fail(res, 400, "Bad Request: message is too long");
    const std::lock_guard<std::mutex> lock(mu_);
    TelegramMessage m{static_cast<int64_t>(messages_.size()) + 101, chat, text, 0};
    if (body.contains("reply_parameters")) {
      const json& reply = body["reply_parameters"];
      if (!reply.is_object() || !reply.contains("message_id") ||
          !reply["message_id"].is_number_integer()) {
        return Fail(res, 400, "Bad Request: can't parse reply parameters JSON object");
      }
      const int64_t to = reply["message_id"].get<int64_t>();
      bool found = false;
      for (const TelegramMessage& earlier : messages_) found = found || earlier.message_id == to;
      if (found) {
        m.reply_to = to;
      } else if (!reply.value("allow_sending_without_reply", false)) {
        return Fail(res, 400, "Bad Request: message to be replied not found");
      }
    }
    json result = {{"message_id", m.message_id},
                   {"from", {{"id", 7000000001}, {"is_bot", true}, {"first_name", "quell"}}},
                   {"chat", {{"id", chat}, {"type", "supergroup"}}},
                   {"date", 1796000000},
                   {"text", text}};
    if (m.reply_to != 0) result["reply_to_message"] = {{"message_id", m.reply_to}};
    messages_.push_back(m);
    res.set_content(json{{"ok", true}, {"result", result}}.dump(), "application/json");
  });
  Start();
}

void TelegramReceiver::SetFloodWait(int seconds) {
  const std::lock_guard<std::mutex> lock(mu_);
  flood_wait_ = seconds;
}

std::vector<TelegramMessage> TelegramReceiver::Messages() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return messages_;
}

void TelegramReceiver::WriteFault(Fault fault, httplib::Response& res) {
  if (fault == Fault::kStatus429) {
    int wait = 0;
    {
      const std::lock_guard<std::mutex> lock(mu_);
      wait = flood_wait_;
    }
    res.headers.erase("Retry-After");  // Telegram says it in the body's parameters
    const json body = {{"ok", false},
                       {"error_code", 429},
                       {"description", "Too Many Requests: retry after " + std::to_string(wait)},
                       {"parameters", {{"retry_after", wait}}}};
    res.set_content(body.dump(), "application/json");
  } else {
    Fail(res, 500, "Internal Server Error");
  }
}

}  // namespace quell::testing
