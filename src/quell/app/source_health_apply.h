#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "quell/app/poll_applier.h"
#include "quell/core/conditions/source_health.h"
#include "quell/core/ports/incident_store.h"
#include "quell/core/ports/payload_encoder.h"
#include "quell/core/text/time.h"

namespace quell::app {

// Where a source's own incident goes, and after how many failed polls in a row it opens.
struct SourceHealthTarget {
  uint32_t failures_to_open = 0;  // 0: the source has no incident of its own
  std::vector<std::string> channels;
  bool shadow = false;  // every condition reading the source is in shadow mode
  core::Duration cooldown = std::chrono::minutes(10);
};

// What applying one poll of a source to its incident did, in one cycle.
struct SourceHealthOutcome {
  std::string source;
  std::string lease;  // the poll lease it was written under; token 0: unfenced
  uint64_t token = 0;
  bool poll_ok = true;  // the poll it applied succeeded
  bool applied = false;
  bool fenced = false;  // another instance holds the lease now: it writes the source's incident
  std::string apply_error;
  ApplySummary summary;
};

// How a source's incident is applied, from `base` (a condition's options: silences, maintenance
// windows, retention, the store's chunking): the rule's policy and `target`'s channels, flat. It
// is never grouped (group_by would fold the one message that says the source is broken into an
// outage of the keys it cannot see), counts against no tenant budget and is never inhibited;
// its condition name cannot appear in an `inhibited_by`, so it holds nothing back either.
ApplyOptions SourceHealthApplyOptions(const SourceHealthTarget& target, ApplyOptions base);

// Applies `poll` to its source's incident in one transaction (with `options.fence`, under that
// poll lease, like the poll's own commits); after the commit, its decision to `sink` when it
// changed the incident's record (a failed poll always does; a success only when something was
// pending or open).
SourceHealthOutcome ApplySourceHealth(core::IncidentStore& store,
                                      const core::PayloadEncoder& encoder, ApplyOptions options,
                                      const core::SourcePoll& poll, core::WallTime now,
                                      DecisionSink& sink);

}  // namespace quell::app
