#include "mattermost_receiver.h"

#include <nlohmann/json.hpp>
#include <regex>

namespace quell::testing {
namespace {

using nlohmann::json;

constexpr size_t kMaxPostChars = 16383;

void AppError(httplib::Response& res, int status, const std::string& id,
              const std::string& message) {
  res.status = status;
  res.set_content(json{{"id", id},
                       {"message", message},
                       {"detailed_error", ""},
                       {"request_id", "hoan6o9ws7rp5xj7wu9rmysrte"},
                       {"status_code", status}}
                      .dump(),
                  "application/json");
}

std::string StringField(const json& j, const char* name) {
  return j.is_object() && j.contains(name) && j[name].is_string() ? j[name].get<std::string>()
                                                                  : std::string();
}

// The text cut into posts of at most 16383 code points, as the server splits a long one.
std::vector<std::string> Split(const std::string& text) {
  std::vector<std::string> parts(1);
  size_t chars = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const bool starts = (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
    if (starts && chars == kMaxPostChars) {
      parts.emplace_back();
      chars = 0;
    }
    if (starts) ++chars;
    parts.back() += text[i];
  }
  return parts;
}

}  // namespace

MattermostReceiver::MattermostReceiver(std::string hook_key) : key_(std::move(hook_key)) {
  server().Post(
      R"(/hooks/([a-z0-9]+))", [this](const httplib::Request& req, httplib::Response& res) {
        const bool authorized = req.matches[1].str() == key_;
        const bool is_json = req.get_header_value("Content-Type").starts_with("application/json");
        const json body = is_json ? json::parse(req.body, nullptr, false) : json();
        std::string key;
        if (body.is_object() && body.contains("props") && body["props"].is_object()) {
          key = StringField(body["props"], "quell_idempotency_key");
        }
        const Admission admission = Admit(req, res, key, authorized);
        const HangAtExit hang(*this, admission.hang);
        if (!admission.answer) {
          if (!authorized) {
            AppError(res, 400, "web.incoming_webhook.invalid.app_error", "Invalid webhook.");
          }
          return;
        }
        if (!body.is_object()) {
          return AppError(res, 400, "web.incoming_webhook.parse.app_error",
                          "Unable to parse incoming data.");
        }
        const std::string text = StringField(body, "text");
        if (text.empty() && !body.contains("attachments")) {
          return AppError(res, 400, "web.incoming_webhook.text.app_error", "No text specified.");
        }
        static const std::regex kChannelMention(R"((^|[^A-Za-z0-9_])@(channel|all|here)\b)",
                                                std::regex::icase);
        {
          const std::lock_guard<std::mutex> lock(mu_);
          for (std::string& part : Split(text)) {
            MattermostPost post;
            post.mentions_channel = std::regex_search(part, kChannelMention);
            post.text = std::move(part);
            post.username = StringField(body, "username");
            post.icon_url = StringField(body, "icon_url");
            if (body.contains("props") && body["props"].is_object()) {
              for (const auto& [name, value] : body["props"].items()) {
                post.props[name] = value.is_string() ? value.get<std::string>() : value.dump();
              }
            }
            posts_.push_back(std::move(post));
          }
        }
        res.status = 200;
        res.set_content("ok", "text/plain");
      });
  Start();
}

std::string MattermostReceiver::HookUrl() const { return BaseUrl() + "/hooks/" + key_; }

std::vector<MattermostPost> MattermostReceiver::Posts() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return posts_;
}

void MattermostReceiver::WriteFault(Fault fault, httplib::Response& res) {
  if (fault == Fault::kStatus429) {
    res.set_header("X-RateLimit-Limit", "10");
    res.set_header("X-RateLimit-Remaining", "0");
    res.set_header("X-RateLimit-Reset", res.get_header_value("Retry-After"));
    res.set_content("limit exceeded\n", "text/plain; charset=utf-8");
    return;
  }
  const int status = res.status;
  AppError(res, 500, "api.post.create_post.app_error", "Unable to save the post.");
  res.status = status;
}

}  // namespace quell::testing
