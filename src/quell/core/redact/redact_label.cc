#include "quell/core/redact/redact_label.h"

#include <array>
#include <cstdint>

#include "quell/core/redact/redact_passes.h"
#include "quell/core/redact/redact_prefilter.h"
#include "quell/core/text/hex.h"
#include "quell/core/text/sha256.h"

namespace quell::core {
namespace {

constexpr std::string_view kPseudonymPrefix = "pii-";
constexpr size_t kPseudonymBytes = 6;  // 12 hex digits: no collision among any real tenant list

bool IsLowerHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

// Whether RedactKeyValues or RedactKeyTokens would find a secret in `value`: the prefilters
// first, since most label values (names, hosts, stages) hold no ':' '=' nor a key's first bytes.
bool HoldsSecret(std::string_view value, const RedactOptions& options) {
  namespace ri = redact_internal;
  RedactStats stats;
  if (ri::ShapeOf(value).key_value_cue) ri::RedactKeyValues(value, stats);
  if (stats.secrets == 0 && ri::MayHoldKeyToken(value, options.extra_secret_prefixes)) {
    ri::RedactKeyTokens(value, options.extra_secret_prefixes, stats);
  }
  return stats.secrets > 0;
}

}  // namespace

void AppendPseudonym(std::string& out, std::string_view value) {
  const std::array<uint8_t, 32> digest = Sha256(value);
  out += kPseudonymPrefix;
  AppendHex(out, std::span<const uint8_t>(digest).first(kPseudonymBytes));
}

bool IsPseudonym(std::string_view value) {
  if (value.size() != kPseudonymPrefix.size() + 2 * kPseudonymBytes) return false;
  if (!value.starts_with(kPseudonymPrefix)) return false;
  for (const char c : value.substr(kPseudonymPrefix.size())) {
    if (!IsLowerHex(c)) return false;
  }
  return true;
}

void AppendRedactedLabelValue(std::string& out, std::string_view name, std::string_view value,
                              const RedactOptions& options) {
  if (value.empty()) return;
  if (LooksSecretKey(name)) {
    out.append("[secret]");
    return;
  }
  // A pseudonym is already redacted; its hex digits could read as a phone number.
  if (!IsPseudonym(value)) {
    if (HoldsSecret(value, options)) {
      RedactOptions label = options;
      label.max_text = 0;
      label.random_tokens = false;
      out.append(Redact(value, label));
      return;
    }
    if (HoldsPersonalData(value)) {
      AppendPseudonym(out, value);
      return;
    }
  }
  out.append(value);
}

std::string RedactLabelValue(std::string_view name, std::string_view value,
                             const RedactOptions& options) {
  std::string out;
  AppendRedactedLabelValue(out, name, value, options);
  return out;
}

void RedactLabels(std::vector<std::pair<std::string, std::string>>& labels,
                  const RedactOptions& options) {
  for (auto& [name, value] : labels) {
    std::string redacted = RedactLabelValue(name, value, options);
    value = std::move(redacted);
  }
}

}  // namespace quell::core
