#include "quell/adapters/channels/callback_signatures.h"

#include <optional>
#include <string>

#include "quell/adapters/channels/webhook/webhook_signature.h"

namespace quell::channels {
namespace {

core::Error Denied(std::string message) {
  return core::MakeError(core::ErrorCode::kPermissionDenied, std::move(message));
}

bool Blank(std::string_view s) { return s.find_first_not_of(" \t") == std::string_view::npos; }

}  // namespace

core::Status VerifyPagerDutySignature(const std::vector<std::string>& secrets,
                                      std::string_view signature_header, std::string_view body) {
  if (Blank(signature_header)) return Denied("X-PagerDuty-Signature is missing");
  bool valid = false;
  for (const std::string& secret : secrets) {
    if (AnySignatureMatches(signature_header, "v1=" + HmacSha256Hex(secret, body))) valid = true;
  }
  if (!valid) return Denied("X-PagerDuty-Signature does not match the body");
  return {};
}

core::Status VerifySlackSignature(std::string_view signing_secret,
                                  std::string_view timestamp_header,
                                  std::string_view signature_header, std::string_view body,
                                  core::WallTime now, core::Duration window) {
  const std::optional<int64_t> seconds = ParseUnixSecondsHeader(timestamp_header);
  if (!seconds) return Denied("X-Slack-Request-Timestamp is missing or not Unix seconds");
  const core::WallTime sent_at{std::chrono::seconds(*seconds)};
  if (sent_at > now + window || sent_at < now - window) {
    return Denied("X-Slack-Request-Timestamp is more than 5 minutes from now (a replay?)");
  }
  if (Blank(signature_header)) return Denied("X-Slack-Signature is missing");
  // Slack signs the timestamp exactly as it sent it, and sends one signature.
  const size_t first = timestamp_header.find_first_not_of(" \t");
  const size_t last = timestamp_header.find_last_not_of(" \t");
  std::string base = "v0:";
  base += timestamp_header.substr(first, last - first + 1);
  base += ':';
  base += body;
  if (signature_header.find(',') != std::string_view::npos ||
      !AnySignatureMatches(signature_header, "v0=" + HmacSha256Hex(signing_secret, base))) {
    return Denied("X-Slack-Signature does not match the body and timestamp");
  }
  return {};
}

}  // namespace quell::channels
