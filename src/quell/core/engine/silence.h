#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::core {

// How a silence's text selects keys. Keys are outsiders' text (a pushed alert's labels make
// them) and may hold `*` themselves, so silencing one incident must not read its key as a glob:
// the page's "Silence this incident" and `silence add --key` are kExact. kGlob is what every
// silence was before kExact existed, and what a stored row without a kind is.
enum class SilenceMatch : uint8_t { kGlob, kExact };

// "glob" or "exact", as stored and as the API and the CLI's jsonl name it.
std::string_view SilenceMatchName(SilenceMatch match);
std::optional<SilenceMatch> ParseSilenceMatch(std::string_view name);

// An operator's "don't send for these keys until then". Decisions are still recorded; outbox
// rows written while it is active go in as silenced and are never sent.
struct Silence {
  uint64_t id = 0;  // assigned by the store; never reused
  // kExact: the one key it silences. kGlob: a key glob, `*` matches any run of characters and
  // everything else is literal.
  std::string pattern;
  WallTime expires_at;  // active while now < expires_at
  std::string reason;
  std::string created_by;
  WallTime created_at;
  SilenceMatch match = SilenceMatch::kGlob;
};

// Whether `key` matches `pattern` as a whole; `*` matches any run (also empty).
bool GlobMatch(std::string_view pattern, std::string_view key);

// Whether `silence` selects `key` (as its kind says), active or not.
bool Matches(const Silence& silence, std::string_view key);

inline bool IsActive(const Silence& silence, WallTime now) { return now < silence.expires_at; }

// True when an active silence among `silences` matches `key`.
bool IsSilenced(std::span<const Silence> silences, std::string_view key, WallTime now);

inline constexpr size_t kMaxSilencePatternBytes = 512;
inline constexpr size_t kMaxSilenceKeyBytes = size_t{64} * 1024;  // limits.key_bytes's largest

// kInvalidArgument unless `pattern` (a silence's key or glob, as `match` says) is non-empty, at
// most kMaxSilenceKeyBytes (a key) or kMaxSilencePatternBytes (a glob) and without control
// characters.
Status ValidateSilencePattern(SilenceMatch match, std::string_view pattern);

// ValidateSilencePattern, and kInvalidArgument unless the reason is non-empty and the expiry
// after `now`.
Status ValidateSilence(const Silence& silence, WallTime now);

}  // namespace quell::core
