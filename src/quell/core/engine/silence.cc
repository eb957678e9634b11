#include "quell/core/engine/silence.h"

namespace quell::core {

std::string_view SilenceMatchName(SilenceMatch match) {
  return match == SilenceMatch::kExact ? "exact" : "glob";
}

std::optional<SilenceMatch> ParseSilenceMatch(std::string_view name) {
  if (name == "exact") return SilenceMatch::kExact;
  if (name == "glob") return SilenceMatch::kGlob;
  return std::nullopt;
}

bool GlobMatch(std::string_view pattern, std::string_view key) {
  // Greedy matching with one backtrack point: the last `*` seen. Linear in practice and never
  // exponential, whatever the pattern.
  size_t p = 0;
  size_t k = 0;
  size_t star = std::string_view::npos;
  size_t star_key = 0;
  while (k < key.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      star_key = k;
    } else if (p < pattern.size() && pattern[p] == key[k]) {
      ++p;
      ++k;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      k = ++star_key;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool Matches(const Silence& silence, std::string_view key) {
  if (silence.match == SilenceMatch::kExact) return silence.pattern == key;
  return GlobMatch(silence.pattern, key);
}

bool IsSilenced(std::span<const Silence> silences, std::string_view key, WallTime now) {
  for (const Silence& silence : silences) {
    if (IsActive(silence, now) && Matches(silence, key)) return true;
  }
  return false;
}

Status ValidateSilencePattern(SilenceMatch match, std::string_view pattern) {
  const bool exact = match == SilenceMatch::kExact;
  const std::string what = exact ? "key" : "pattern";
  // A key may be as long as limits.key_bytes allows; a glob is matched against every key of
  // every poll, so it stays short.
  const size_t max = exact ? kMaxSilenceKeyBytes : kMaxSilencePatternBytes;
  if (pattern.empty()) return MakeError(ErrorCode::kInvalidArgument, "empty " + what);
  if (pattern.size() > max) {
    return MakeError(ErrorCode::kInvalidArgument,
                     what + " longer than " + std::to_string(max) + " bytes");
  }
  for (const char c : pattern) {
    if (static_cast<unsigned char>(c) < 0x20) {
      return MakeError(ErrorCode::kInvalidArgument, what + " holds a control character");
    }
  }
  return {};
}

Status ValidateSilence(const Silence& silence, WallTime now) {
  if (auto valid = ValidateSilencePattern(silence.match, silence.pattern); !valid) return valid;
  if (silence.reason.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "a silence needs a reason");
  }
  if (silence.expires_at <= now) {
    return MakeError(ErrorCode::kInvalidArgument, "a silence must expire in the future");
  }
  return {};
}

}  // namespace quell::core
