#include "quell/adapters/channels/sms/twilio_sms_channel.h"

#include <openssl/evp.h>

#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "quell/adapters/channels/sms/sms_kind.h"
#include "quell/core/text/url.h"

namespace quell::channels {
namespace {

using nlohmann::json;
constexpr std::string_view kChannel = "twilio";
// Twilio refuses a Body over 1600 characters; bytes never undercount characters.
constexpr size_t kMaxBodyBytes = 1600;

bool IsAlnum(std::string_view s) {
  for (const char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) {
      return false;
    }
  }
  return true;
}

void AppendField(std::string& form, std::string_view name, std::string_view value) {
  if (!form.empty()) form += '&';
  form += name;
  form += '=';
  form += core::UrlEncode(value);
}

}  // namespace

std::string BasicAuthorization(std::string_view user, std::string_view password) {
  std::string plain(user);
  plain += ':';
  plain += password;
  std::vector<unsigned char> encoded(4 * ((plain.size() + 2) / 3) + 1);
  const int n =
      EVP_EncodeBlock(encoded.data(), reinterpret_cast<const unsigned char*>(plain.data()),
                      static_cast<int>(plain.size()));
  std::string header = "Basic ";
  header.append(reinterpret_cast<const char*>(encoded.data()), static_cast<size_t>(n));
  return header;
}

TwilioSmsChannel::TwilioSmsChannel(SmsSettings settings)
    : settings_(std::move(settings)),
      authorization_(BasicAuthorization(settings_.account_sid, settings_.auth_token)) {}

core::Result<std::unique_ptr<TwilioSmsChannel>> TwilioSmsChannel::Create(SmsSettings settings) {
  if (auto s = CheckHttpUrl(kChannel, "base_url", settings.base_url); !s.ok()) return s.error();
  if (auto s = CheckTimeouts(kChannel, settings.timeouts); !s.ok()) return s.error();
  if (auto s = CheckSetting(kChannel, "account_sid", settings.account_sid); !s.ok()) {
    return s.error();
  }
  if (!IsAlnum(settings.account_sid)) {
    return core::MakeError(core::ErrorCode::kInvalidArgument,
                           "twilio: account_sid must be letters and digits (\"AC...\")");
  }
  if (auto s = CheckSetting(kChannel, "auth_token", settings.auth_token); !s.ok()) {
    return s.error();
  }
  if (auto s = CheckSetting(kChannel, "from", settings.from); !s.ok()) return s.error();
  if (auto s = CheckSetting(kChannel, "to", settings.to); !s.ok()) return s.error();
  while (settings.base_url.ends_with('/')) settings.base_url.pop_back();
  return std::unique_ptr<TwilioSmsChannel>(new TwilioSmsChannel(std::move(settings)));
}

core::Result<core::HttpRequest> TwilioSmsChannel::Encode(const core::Delivery& delivery,
                                                         core::WallTime /*now*/) const {
  const core::RenderedMessage& message = delivery.message;
  const std::string& text = message.body.empty() ? message.subject : message.body;
  if (text.empty()) {
    return core::MakeError(
        core::ErrorCode::kInvalidArgument,
        "twilio: the rendered message of " + delivery.row.idempotency_key + " is empty");
  }
  std::string form;
  AppendField(form, "To", settings_.to);
  AppendField(form, "From", settings_.from);
  AppendField(form, "Body", Truncate(text, kMaxBodyBytes));
  core::HttpRequest request = PostRequest(
      settings_.base_url + "/2010-04-01/Accounts/" + settings_.account_sid + "/Messages.json",
      "application/x-www-form-urlencoded", std::move(form), settings_.timeouts);
  request.headers.emplace_back("Authorization", authorization_);
  request.headers.emplace_back("I-Twilio-Idempotency-Token", delivery.row.idempotency_key);
  return request;
}

core::SendOutcome TwilioSmsChannel::Decode(const core::Delivery& /*delivery*/,
                                           const core::HttpResponse& response) const {
  const json answer = json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (core::ClassifyHttpStatus(response.status) == core::SendOutcome::Kind::kSent) {
    if (answer.is_object() && answer.contains("sid") && answer["sid"].is_string()) {
      return core::SendOutcome::Sent(answer["sid"].get<std::string>());
    }
    // Accepted, but the answer is not Twilio's: the message likely went, so it is not resent.
    return core::SendOutcome::Sent("");
  }
  std::string detail;
  if (answer.is_object() && answer.contains("code")) {
    detail = "code " + answer["code"].dump();
    if (answer.contains("message") && answer["message"].is_string()) {
      detail += ": ";
      detail += answer["message"].get<std::string>();
    }
  } else {
    detail = BodyExcerpt(response.body);
  }
  return FailureOutcome(response,
                        ErrorText(kChannel, response.status, detail, settings_.auth_token));
}

core::Result<BuiltChannel> SmsKind::Build(Settings settings, const ChannelBuild& build) {
  settings.timeouts = build.timeouts;
  return Built(TwilioSmsChannel::Create(std::move(settings)));
}

}  // namespace quell::channels
