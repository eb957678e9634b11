#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "quell/core/result.h"
#include "quell/core/text/time.h"

// The webhook's request signature (docs/channels.md): X-Quell-Timestamp carries Unix seconds,
// X-Quell-Signature "v1=" and the lower-case hex HMAC-SHA256, keyed with the shared secret,
// of "<timestamp>.<body>". Signing the timestamp lets a receiver refuse replays of old bodies.
namespace quell::channels {

// Lower-case hex HMAC-SHA256 of `data` under `key`.
std::string HmacSha256Hex(std::string_view key, std::string_view data);

// Unix seconds from a signed request's timestamp header (surrounding blanks allowed); nullopt
// when it is empty, not a non-negative integer, or too large to be a time.
std::optional<int64_t> ParseUnixSecondsHeader(std::string_view header);

// Whether one of the comma-separated signatures in `header` equals `expected`, compared in
// constant time (a sender rotating its secret signs with both).
bool AnySignatureMatches(std::string_view header, std::string_view expected);

// "v1=<hex>" for a body sent at `unix_seconds`.
std::string WebhookSignature(std::string_view secret, int64_t unix_seconds, std::string_view body);

// For receivers: ok when `signature_header` (one or more comma-separated "v1=<hex>", so a
// sender may sign with an old and a new secret while rotating) holds a valid signature of
// `body` and the timestamp is within `tolerance` of `now`. kPermissionDenied says which check
// failed and never quotes a signature. Compares in constant time.
core::Status VerifyWebhookSignature(std::string_view secret, std::string_view timestamp_header,
                                    std::string_view signature_header, std::string_view body,
                                    core::WallTime now,
                                    core::Duration tolerance = std::chrono::minutes(5));

}  // namespace quell::channels
