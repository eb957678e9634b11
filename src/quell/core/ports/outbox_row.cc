#include "quell/core/ports/outbox_row.h"

#include <array>

#include "quell/core/text/hex.h"
#include "quell/core/text/sha256.h"

namespace quell::core {
namespace {

constexpr std::array<const char*, 13> kStatusNames = {
    "pending",  "in_flight", "sent",    "dead",  "shadow",    "superseded", "folded",
    "silenced", "dropped",   "grouped", "muted", "cancelled", "inhibited"};

constexpr std::array<const char*, 4> kKindNames = {"incident", "group", "digest", "dead_letter"};

void AppendPart(std::string& out, std::string_view part) {
  // Length-prefixed, so no choice of key or channel can make two tuples encode alike.
  out += std::to_string(part.size());
  out += ':';
  out += part;
  out += ';';
}

}  // namespace

const char* OutboxRowKindName(OutboxRowKind kind) { return kKindNames[static_cast<size_t>(kind)]; }

Result<OutboxRowKind> ParseOutboxRowKind(std::string_view name) {
  for (size_t i = 0; i < kKindNames.size(); ++i) {
    if (name == kKindNames[i]) return static_cast<OutboxRowKind>(i);
  }
  return MakeError(ErrorCode::kCorrupt, "unknown outbox row kind \"" + std::string(name) + "\"");
}

const char* OutboxStatusName(OutboxStatus status) {
  return kStatusNames[static_cast<size_t>(status)];
}

Result<OutboxStatus> ParseOutboxStatus(std::string_view name) {
  for (size_t i = 0; i < kStatusNames.size(); ++i) {
    if (name == kStatusNames[i]) return static_cast<OutboxStatus>(i);
  }
  return MakeError(ErrorCode::kInvalidArgument,
                   "unknown outbox status \"" + std::string(name) +
                       "\" (want pending, in_flight, sent, dead, shadow, superseded, folded, "
                       "silenced, dropped, grouped, muted, cancelled or inhibited)");
}

Result<TransitionKind> ParseTransitionName(std::string_view name) {
  for (auto kind : {TransitionKind::kOpen, TransitionKind::kRenotify, TransitionKind::kResolve}) {
    if (name == TransitionName(kind)) return kind;
  }
  return MakeError(ErrorCode::kCorrupt, "unknown transition \"" + std::string(name) + "\"");
}

std::string OutboxIdempotencyKey(std::string_view key, uint64_t generation, uint64_t version,
                                 std::string_view channel) {
  std::string encoded = "quell-outbox-v1;";
  AppendPart(encoded, key);
  AppendPart(encoded, std::to_string(generation));
  AppendPart(encoded, std::to_string(version));
  AppendPart(encoded, channel);
  const auto digest = Sha256(encoded);
  std::string out = "q1-";
  AppendHex(out, std::span<const uint8_t>(digest).first(16));
  return out;
}

}  // namespace quell::core
