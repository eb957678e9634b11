#include "quell/adapters/channels/webhook/webhook_signature.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>
#include <charconv>
#include <limits>

#include "quell/core/text/hex.h"

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

}  // namespace

std::string HmacSha256Hex(std::string_view key, std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> mac{};
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), mac.data(), &length);
  return core::HexOf(std::span<const uint8_t>(mac.data(), length));
}

std::string WebhookSignature(std::string_view secret, int64_t unix_seconds, std::string_view body) {
  std::string signed_text = std::to_string(unix_seconds);
  signed_text += '.';
  signed_text += body;
  return "v1=" + HmacSha256Hex(secret, signed_text);
}

std::optional<int64_t> ParseUnixSecondsHeader(std::string_view header) {
  header = Trim(header);
  int64_t seconds = 0;
  const auto [end, ec] = std::from_chars(header.data(), header.data() + header.size(), seconds);
  if (header.empty() || ec != std::errc() || end != header.data() + header.size() || seconds < 0 ||
      seconds > std::numeric_limits<int64_t>::max() / 1'000'000) {
    return std::nullopt;
  }
  return seconds;
}

bool AnySignatureMatches(std::string_view header, std::string_view expected) {
  bool valid = false;
  while (!header.empty()) {
    const size_t comma = header.find(',');
    const std::string_view candidate = Trim(header.substr(0, comma));
    header = comma == std::string_view::npos ? std::string_view{} : header.substr(comma + 1);
    // Every candidate is compared, so the time taken does not tell which one matched.
    if (candidate.size() == expected.size() &&
        CRYPTO_memcmp(candidate.data(), expected.data(), expected.size()) == 0) {
      valid = true;
    }
  }
  return valid;
}

core::Status VerifyWebhookSignature(std::string_view secret, std::string_view timestamp_header,
                                    std::string_view signature_header, std::string_view body,
                                    core::WallTime now, core::Duration tolerance) {
  const std::optional<int64_t> seconds = ParseUnixSecondsHeader(timestamp_header);
  if (!seconds) return Denied("X-Quell-Timestamp is missing or not Unix seconds");
  const core::WallTime sent_at{std::chrono::seconds(*seconds)};
  if (sent_at > now + tolerance || sent_at < now - tolerance) {
    return Denied("X-Quell-Timestamp is outside the tolerance window");
  }
  if (signature_header.empty()) return Denied("X-Quell-Signature is missing");
  if (!AnySignatureMatches(signature_header, WebhookSignature(secret, *seconds, body))) {
    return Denied("X-Quell-Signature does not match the body and timestamp");
  }
  return {};
}

}  // namespace quell::channels
