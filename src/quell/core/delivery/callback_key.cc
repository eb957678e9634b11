#include "quell/core/delivery/callback_key.h"

#include <algorithm>
#include <charconv>

#include "quell/core/delivery/grouping.h"
#include "quell/core/text/url.h"

namespace quell::core {
namespace {

constexpr std::string_view kAlertPrefix = "{group:";
constexpr std::string_view kRowPrefix = "q1-";
constexpr size_t kRowHexDigits = 32;

bool IsDigits(std::string_view text) {
  return !text.empty() && text.size() <= 19 &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

uint64_t ToUint(std::string_view digits) {
  uint64_t value = 0;
  std::from_chars(digits.data(), digits.data() + digits.size(), value);
  return value;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// UrlEncode's inverse; nullopt for anything UrlEncode never writes.
std::optional<std::string> UrlDecode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c != '%') {
      const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                              (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
                              c == '~';
      if (!unreserved) return std::nullopt;
      out += c;
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;
    const int high = HexValue(text[i + 1]);
    const int low = HexValue(text[i + 2]);
    if (high < 0 || low < 0) return std::nullopt;
    out += static_cast<char>(high * 16 + low);
    i += 2;
  }
  return out;
}

}  // namespace

std::string IncidentCallbackKey(std::string_view key, uint64_t generation) {
  return std::string(key) + ":" + std::to_string(generation);
}

std::string GroupAlertCallbackKey(std::string_view channel, std::string_view group_key,
                                  uint64_t episode) {
  return std::string(kAlertPrefix) + UrlEncode(channel) + ":" + std::to_string(episode) +
         "}:" + std::string(group_key);
}

std::optional<CallbackKey> ParseCallbackKey(std::string_view text) {
  CallbackKey out;
  if (IsGroupKey(text)) {
    out.kind = CallbackKey::Kind::kLegacyGroup;
    out.group_key = std::string(text.substr(kGroupKeyPrefix.size()));
    return out;
  }
  if (text.starts_with(kAlertPrefix)) {
    const std::string_view rest = text.substr(kAlertPrefix.size());
    const size_t colon = rest.find(':');
    const size_t close = rest.find("}:");
    if (colon == std::string_view::npos || close == std::string_view::npos || close < colon) {
      return std::nullopt;
    }
    auto channel = UrlDecode(rest.substr(0, colon));
    const std::string_view episode = rest.substr(colon + 1, close - colon - 1);
    if (!channel || channel->empty() || !IsDigits(episode) || ToUint(episode) == 0) {
      return std::nullopt;
    }
    out.kind = CallbackKey::Kind::kGroupAlert;
    out.channel = std::move(*channel);
    out.episode = ToUint(episode);
    out.group_key = std::string(rest.substr(close + 2));
    return out;
  }
  if (text.size() == kRowPrefix.size() + kRowHexDigits && text.starts_with(kRowPrefix) &&
      std::all_of(text.begin() + static_cast<std::ptrdiff_t>(kRowPrefix.size()), text.end(),
                  [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); })) {
    out.kind = CallbackKey::Kind::kGroupMessage;
    out.group_row = std::string(text);
    return out;
  }
  // "<key>:<generation>", split at the last colon (keys may hold colons).
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || !IsDigits(text.substr(colon + 1))) {
    return std::nullopt;
  }
  out.kind = CallbackKey::Kind::kIncident;
  out.key = std::string(text.substr(0, colon));
  out.generation = ToUint(text.substr(colon + 1));
  return out;
}

}  // namespace quell::core
