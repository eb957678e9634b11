#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::core {

// One step of a condition's `escalation:` list: its channels get the open `after` past the
// open, only if the incident is still open and unacknowledged by then.
struct EscalationTier {
  Duration after = Duration::zero();
  std::vector<std::string> channels;
};

// Where one transition of an incident goes: a channel and the tier it belongs to. tier 0 is an
// ordinary row (a flat `channels:` list, or a tier whose `after` is 0s), sent at once and never
// cancelled; tier k >= 1 is the k-th (1-based) entry of the escalation list, due `after` past the
// open.
struct TierTarget {
  std::string channel;
  uint32_t tier = 0;
  Duration after = Duration::zero();
};

// The targets of a flat channel list: tier 0 each.
std::vector<TierTarget> FlatTargets(const std::vector<std::string>& channels);
// The targets of escalation tiers, in list order.
std::vector<TierTarget> TierTargets(const std::vector<EscalationTier>& tiers);

// Whether `target`'s tier has been paged by `now` for an incident opened at `opened_at`: its
// renotifies and resolve go to it only then. Tier 0 always is.
bool TierDue(const TierTarget& target, std::optional<WallTime> opened_at, WallTime now);

// kInvalidArgument naming the tier (1-based) unless: the list is not empty, every tier has
// channels, `after` is not negative and grows strictly down the list, and no channel is in two
// tiers.
Status ValidateEscalation(const std::vector<EscalationTier>& tiers);

}  // namespace quell::core
