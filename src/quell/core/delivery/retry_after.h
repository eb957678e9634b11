#pragma once

#include <optional>
#include <string_view>

#include "quell/core/text/time.h"

namespace quell::core {

// How long a Retry-After header value (RFC 9110 section 10.2.3) asks the client to wait, seen
// from `now`: delay-seconds ("120") or an HTTP-date in any of its three forms (IMF-fixdate
// "Sun, 06 Nov 1994 08:49:37 GMT", the obsolete RFC 850 and asctime forms). A date in the past
// means 0. Huge delays saturate (at about 31,000 years) instead of overflowing; the caller caps
// the wait anyway. nullopt for anything else, so a garbled header falls back to backoff.
std::optional<Duration> ParseRetryAfter(std::string_view value, WallTime now);

}  // namespace quell::core
