#pragma once

#include <optional>
#include <string_view>

#include "quell/core/engine/decision.h"
#include "quell/core/engine/incident.h"
#include "quell/core/text/time.h"

namespace quell::core {

// What an operator's ack did.
enum class AckOutcome : uint8_t {
  kAcked,         // the incident is now acknowledged; version + 1
  kAlreadyAcked,  // it was acknowledged before; unchanged (the first ack is kept)
  kNotOpen,       // nothing is open under the key; unchanged
};

// Acknowledges an open incident at `now` by `by`. Evaluate then answers a cooldown renotify
// with update_only (reason acknowledged) for the rest of this generation; the ack is cleared
// when the key opens again as a new generation. last_observed_at is not touched: an ack is
// not an observation, so it never makes a later observation stale.
AckOutcome Acknowledge(Incident& incident, WallTime now, std::string_view by);

// Closes an open incident by hand at `now`: a resolve decision (reason manual) with a
// resolve transition, version + 1, so the caller writes it like a poll's resolve (incident,
// decision log, outbox). When nothing is open it returns an ignore decision with
// changed == false and leaves `incident` untouched. The healthy streak resets.
//
// The key is then held resolved: a source still failing is recorded (update_only, reason
// manually_resolved) without paging again, until the source is seen healthy once, or until
// now + `hold_for` when given, whichever comes first. The next failure after that opens a new
// generation.
Decision ResolveByHand(Incident& incident, WallTime now,
                       std::optional<Duration> hold_for = std::nullopt);

}  // namespace quell::core
