#include "quell/adapters/channels/callback_signatures.h"

#include <openssl/crypto.h>

#include <charconv>
#include <limits>

#include "quell/adapters/channels/webhook_signature.h"

namespace quell::channels {
namespace {

core::Error Denied(std::string message) {
  return core::MakeError(core::ErrorCode::kPermissionDenied, std::move(message));
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool SameText(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

core::Status VerifyPagerDutySignature(const std::vector<std::string>& secrets,
                                      std::string_view signature_header, std::string_view body) {
  if (Trim(signature_header).empty()) return Denied("X-PagerDuty-Signature is missing");
  bool valid = false;
  for (const std::string& secret : secrets) {
    const std::string expected = "v1=" + HmacSha256Hex(secret, body);
    std::string_view rest = signature_header;
    while (!rest.empty()) {
      const size_t comma = rest.find(',');
      if (SameText(Trim(rest.substr(0, comma)), expected)) valid = true;
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    }
  }
  if (!valid) return Denied("X-PagerDuty-Signature does not match the body");
  return {};
}

core::Status VerifySlackSignature(std::string_view signing_secret,
                                  std::string_view timestamp_header,
                                  std::string_view signature_header, std::string_view body,
                                  core::WallTime now, core::Duration window) {
  timestamp_header = Trim(timestamp_header);
  int64_t seconds = 0;
  const auto [end, ec] = std::from_chars(
      timestamp_header.data(), timestamp_header.data() + timestamp_header.size(), seconds);
  if (timestamp_header.empty() || ec != std::errc() ||
      end != timestamp_header.data() + timestamp_header.size() || seconds < 0 ||
      seconds > std::numeric_limits<int64_t>::max() / 1'000'000) {
    return Denied("X-Slack-Request-Timestamp is missing or not Unix seconds");
  }
  const core::WallTime sent_at{std::chrono::seconds(seconds)};
  if (sent_at > now + window || sent_at < now - window) {
    return Denied("X-Slack-Request-Timestamp is more than 5 minutes from now (a replay?)");
  }
  if (Trim(signature_header).empty()) return Denied("X-Slack-Signature is missing");
  std::string base = "v0:";
  base += timestamp_header;
  base += ':';
  base += body;
  if (!SameText(Trim(signature_header), "v0=" + HmacSha256Hex(signing_secret, base))) {
    return Denied("X-Slack-Signature does not match the body and timestamp");
  }
  return {};
}

}  // namespace quell::channels
