#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "quell/core/result.h"

namespace quell::core {

// quell keeps time in microseconds since the Unix epoch, UTC: the precision PostgreSQL stores,
// so a value survives a round trip through either store unchanged.
using Duration = std::chrono::microseconds;
using WallTime = std::chrono::sys_time<Duration>;

// Parses an RFC 3339 timestamp ("2026-12-02T09:00:00Z", "2026-12-02T10:00:00.25+01:00").
// Digits past microseconds are truncated. Fails with kInvalidArgument and a message saying why,
// also for a time the offset moves out of the years 0000 to 9999 (FormatRfc3339's range).
Result<WallTime> ParseRfc3339(std::string_view text);

// Appends `t` in UTC as "YYYY-MM-DDTHH:MM:SS[.ffffff]Z", the fraction only when it is not zero
// and without trailing zeros. Appending (not returning) keeps the replay hot path allocation-free.
void AppendRfc3339(std::string& out, WallTime t);
std::string FormatRfc3339(WallTime t);

// Parses a Go-style duration: "90s", "10m", "1h30m", "1.5h", "250ms", "0". Negative values and
// durations below a microsecond are rejected; so is a number without a unit (other than 0).
Result<Duration> ParseDuration(std::string_view text);

// Formats like Go's time.Duration.String() at microsecond precision: "1h30m0s", "90ms", "0s".
std::string FormatDuration(Duration d);

}  // namespace quell::core
