#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::core {

// An operator's "don't send for these keys until then". Decisions are still recorded; outbox
// rows written while it is active go in as silenced and are never sent.
struct Silence {
  uint64_t id = 0;      // assigned by the store; never reused
  std::string pattern;  // a key glob: `*` matches any run of characters, all else is literal
  WallTime expires_at;  // active while now < expires_at
  std::string reason;
  std::string created_by;
  WallTime created_at;
};

// Whether `key` matches `pattern` as a whole; `*` matches any run (also empty).
bool GlobMatch(std::string_view pattern, std::string_view key);

inline bool IsActive(const Silence& silence, WallTime now) { return now < silence.expires_at; }

// True when an active silence among `silences` matches `key`.
bool IsSilenced(std::span<const Silence> silences, std::string_view key, WallTime now);

// kInvalidArgument unless the pattern is non-empty, at most 512 bytes and without control
// characters, the reason non-empty, and the expiry after `now`.
Status ValidateSilence(const Silence& silence, WallTime now);

}  // namespace quell::core
