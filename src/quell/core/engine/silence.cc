#include "quell/core/engine/silence.h"

namespace quell::core {

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

bool IsSilenced(std::span<const Silence> silences, std::string_view key, WallTime now) {
  for (const Silence& silence : silences) {
    if (IsActive(silence, now) && GlobMatch(silence.pattern, key)) return true;
  }
  return false;
}

Status ValidateSilence(const Silence& silence, WallTime now) {
  if (silence.pattern.empty()) return MakeError(ErrorCode::kInvalidArgument, "empty pattern");
  if (silence.pattern.size() > 512) {
    return MakeError(ErrorCode::kInvalidArgument, "pattern longer than 512 bytes");
  }
  for (const char c : silence.pattern) {
    if (static_cast<unsigned char>(c) < 0x20) {
      return MakeError(ErrorCode::kInvalidArgument, "pattern holds a control character");
    }
  }
  if (silence.reason.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "a silence needs a reason");
  }
  if (silence.expires_at <= now) {
    return MakeError(ErrorCode::kInvalidArgument, "a silence must expire in the future");
  }
  return {};
}

}  // namespace quell::core
