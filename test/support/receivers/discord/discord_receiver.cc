#include "discord_receiver.h"

#include <nlohmann/json.hpp>

namespace quell::testing {
namespace {

using nlohmann::json;

void Answer(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(body.dump(), "application/json");
}

size_t Chars(const std::string& s) {
  size_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

std::string StringField(const json& j, const char* name) {
  return j.is_object() && j.contains(name) && j[name].is_string() ? j[name].get<std::string>()
                                                                  : std::string();
}

// 400 Invalid Form Body naming the field, in Discord's nested "errors" shape.
void FormError(httplib::Response& res, const std::vector<std::string>& path, size_t max) {
  json error = {
      {"_errors",
       json::array({{{"code", "BASE_TYPE_MAX_LENGTH"},
                     {"message", "Must be " + std::to_string(max) + " or fewer in length."}}})}};
  for (auto it = path.rbegin(); it != path.rend(); ++it) error = json{{*it, error}};
  Answer(res, 400, {{"message", "Invalid Form Body"}, {"code", 50035}, {"errors", error}});
}

// The first embed limit `body` passes, as a form error; false when it keeps them all.
bool EmbedsTooLong(const json& embeds, httplib::Response& res) {
  if (embeds.size() > 10) {
    FormError(res, {"embeds"}, 10);
    return true;
  }
  size_t total = 0;
  for (size_t i = 0; i < embeds.size(); ++i) {
    const json& e = embeds[i];
    const std::string at = std::to_string(i);
    const auto check = [&](const std::string& text, const char* name, size_t max) {
      total += Chars(text);
      if (Chars(text) <= max) return false;
      FormError(res, {"embeds", at, name}, max);
      return true;
    };
    if (check(StringField(e, "title"), "title", 256)) return true;
    if (check(StringField(e, "description"), "description", 4096)) return true;
    if (e.contains("footer") && check(StringField(e["footer"], "text"), "footer", 2048)) {
      return true;
    }
    if (e.contains("fields") && e["fields"].size() > 25) {
      FormError(res, {"embeds", at, "fields"}, 25);
      return true;
    }
  }
  if (total > 6000) {
    Answer(res, 400,
           {{"message", "Invalid Form Body"},
            {"code", 50035},
            {"errors",
             {{"embeds",
               {{"_errors",
                 json::array({{{"code", "MAX_EMBED_SIZE_EXCEEDED"},
                               {"message", "Embed size exceeds maximum size of 6000"}}})}}}}}});
    return true;
  }
  return false;
}

}  // namespace

DiscordReceiver::DiscordReceiver(std::string webhook_id, std::string token)
    : webhook_id_(std::move(webhook_id)), token_(std::move(token)) {
  server().Post(R"(/api/webhooks/([0-9]+)/([A-Za-z0-9_\-]+))", [this](const httplib::Request& req,
                                                                      httplib::Response& res) {
    const bool known = req.matches[1].str() == webhook_id_;
    const bool authorized = known && req.matches[2].str() == token_;
    const json body = json::parse(req.body, nullptr, false);
    std::string key;
    if (body.is_object() && body.contains("embeds") && body["embeds"].is_array() &&
        !body["embeds"].empty() && body["embeds"][0].contains("footer")) {
      const std::string footer = StringField(body["embeds"][0]["footer"], "text");
      if (const size_t at = footer.find("q1-"); at != std::string::npos) {
        key = footer.substr(at, footer.find(' ', at) - at);
      }
    }
    const Admission admission = Admit(req, res, key, authorized);
    const HangAtExit hang(*this, admission.hang);
    if (!admission.answer) {
      if (!known) return Answer(res, 404, {{"message", "Unknown Webhook"}, {"code", 10015}});
      if (!authorized)
        return Answer(res, 401, {{"message", "Invalid Webhook Token"}, {"code", 50027}});
      return;
    }
    if (!body.is_object()) {
      return Answer(res, 400,
                    {{"message", "The request body contains invalid JSON."}, {"code", 50109}});
    }
    const std::string content = StringField(body, "content");
    if (Chars(content) > 2000) return FormError(res, {"content"}, 2000);
    const json embeds =
        body.contains("embeds") && body["embeds"].is_array() ? body["embeds"] : json::array();
    if (EmbedsTooLong(embeds, res)) return;
    if (content.empty() && embeds.empty()) {
      return Answer(res, 400, {{"message", "Cannot send an empty message"}, {"code", 50006}});
    }
    DiscordMessage message;
    message.content = content;
    if (!embeds.empty()) {
      message.description = StringField(embeds[0], "description");
      if (embeds[0].contains("footer")) message.footer = StringField(embeds[0]["footer"], "text");
    }
    message.thread_id = req.get_param_value("thread_id");
    if (body.contains("allowed_mentions") && body["allowed_mentions"].is_object()) {
      const json& parse = body["allowed_mentions"].value("parse", json::array({"everyone"}));
      message.parses_mentions = !(parse.is_array() && parse.empty());
    }
    json answer;
    {
      const std::lock_guard<std::mutex> lock(mu_);
      message.id = std::to_string(1300000000000000000ULL + messages_.size() + 1);
      messages_.push_back(message);
      answer = {
          {"id", message.id},
          {"type", 0},
          {"content", message.content},
          {"channel_id", message.thread_id.empty() ? "1200000000000000001" : message.thread_id},
          {"webhook_id", webhook_id_},
          {"embeds", embeds}};
    }
    if (req.get_param_value("wait") != "true") {
      res.status = 204;
      return;
    }
    Answer(res, 200, answer);
  });
  Start();
}

std::string DiscordReceiver::WebhookUrl() const {
  return BaseUrl() + "/api/webhooks/" + webhook_id_ + "/" + token_;
}

std::vector<DiscordMessage> DiscordReceiver::Messages() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return messages_;
}

void DiscordReceiver::WriteFault(Fault fault, httplib::Response& res) {
  if (fault != Fault::kStatus429) {
    res.set_content(json{{"message", "500: Internal Server Error"}, {"code", 0}}.dump(),
                    "application/json");
    return;
  }
  // The body repeats the Retry-After the base class set, as Discord's does (seconds).
  const std::string after = res.get_header_value("Retry-After");
  double seconds = 1;
  try {
    seconds = std::stod(after);
  } catch (...) {
  }
  res.set_header("X-RateLimit-Scope", "shared");
  res.set_content(
      json{{"message", "You are being rate limited."}, {"retry_after", seconds}, {"global", false}}
          .dump(),
      "application/json");
}

}  // namespace quell::testing
