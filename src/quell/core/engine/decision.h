#pragma once

#include <cstdint>
#include <optional>

#include "quell/core/text/time.h"

namespace quell::core {

// The decision names are a stable contract: `quell replay` prints them and tools parse them.
enum class DecisionKind : uint8_t {
  kNotify,         // send: the incident opened, or its cooldown elapsed
  kUpdateOnly,     // still failing; evidence recorded, nothing sent
  kWaitForHealth,  // healthy, but the streak to close is not reached yet
  kResolve,        // the streak is reached; the incident closes
  kIgnore,         // healthy and nothing is open
  kUnknown,        // a failed or partial poll; nothing changes
  kStale,          // not later than the key's last applied observation; nothing changes
};

enum class Reason : uint8_t {
  kNone,
  kOpen,              // notify: a new generation opened
  kCooldownElapsed,   // notify: still open and the cooldown since the last notify has passed
  kFlapping,          // update_only: a flapping key failed again soon after its resolve
  kRenotifyLimit,     // update_only: the cooldown passed but the renotify limit is spent
  kAcknowledged,      // update_only: the cooldown passed but an operator acknowledged it
  kMinOpen,           // wait_for_health: the streak is reached but the minimum open time is not
  kManual,            // resolve: an operator closed the incident by hand
  kManuallyResolved,  // update_only: still failing, but held resolved by a manual resolve
  kHoldReleased,      // ignore: seen healthy, which ends a manual resolve's hold
  kPending,           // update_only: failing, but fewer times in a row than it takes to open
  kExpired,           // resolve: a pushed key went unrefreshed past its expire_after
};

// What the store must commit to the outbox, beside the incident row, in the same transaction.
enum class TransitionKind : uint8_t { kOpen, kRenotify, kResolve };

const char* DecisionName(DecisionKind kind);
const char* ReasonName(Reason reason);  // "" for kNone
const char* TransitionName(TransitionKind kind);

struct Decision {
  DecisionKind kind = DecisionKind::kUnknown;
  Reason reason = Reason::kNone;
  std::optional<TransitionKind> transition;
  uint64_t generation = 0;  // the incident's, after the decision
  uint64_t version = 0;     // the incident's, after the decision

  // True when the incident record changed and must be written back.
  bool changed = false;
};

}  // namespace quell::core
