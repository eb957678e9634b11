#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "quell/core/conditions/push_condition.h"
#include "quell/core/engine/incident.h"
#include "quell/core/engine/observation.h"
#include "quell/core/engine/policy.h"
#include "quell/core/text/time.h"

namespace quell::core {

// A source that keeps failing is an incident of its own: a failed poll only holds the incidents
// of the conditions reading it (their observations are unknown), so without this a broken
// source (an expired key answering 401) would page nobody for as long as it stays broken.

// The condition every source's incident is stored under. A config cannot name a condition so
// (the space), so no `inhibited_by` can name it: a source's incident never holds another.
inline constexpr std::string_view kSourceHealthCondition = "source health";

// The key of `source`'s incident: "source:" + the name GET /v1/sources shows for it
// ("source:infrai error groups"), or "source:push/<condition>" for a push condition's sender.
std::string SourceHealthKey(std::string_view source);
// The source a push condition's sweep stands for: "push/<condition>".
std::string PushSenderName(std::string_view condition);

// The rule, as an engine policy: the incident opens at the `failures_to_open`th failed poll in
// a row (the engine's pending period, so the streak lives on the incident's record: it survives
// a restart or a failover, and the store's compare-and-set counts each poll once) and resolves
// at the first poll that succeeds, since the source's own conditions keep their healthy
// streaks. A still failing source is renotified after `cooldown`. Evaluate(incident,
// ObserveSourcePoll(...), SourceHealthPolicy(...)) is the transition. `failures_to_open` 0 means
// the rule is off: the callers then observe nothing.
Policy SourceHealthPolicy(uint32_t failures_to_open, Duration cooldown);

// One poll of one source, as its health sees it.
struct SourcePoll {
  std::string source;  // the name GET /v1/sources shows, or PushSenderName(condition)
  bool ok = true;
  std::string error;  // why it failed, in the remote's own words; redacted by ObserveSourcePoll
  std::string what;   // the headline of a failure; empty: "quell cannot poll <source>"
};

// The observation of `poll` at `now` for the source's incident (SourceHealthKey): healthy when it
// succeeded; unhealthy when it failed, labelled {source: name}, with the evidence
// {"title": what, "message": the error redacted by RedactErrorText, "source": name}.
Observation ObserveSourcePoll(const SourcePoll& poll, WallTime now);

// A push condition's sweep at `now` over its open incidents, as a poll of its sender: failed when
// incidents are open and none was observed within stale_after (the sender went quiet, or lost its
// way to quell); ok when one was, or when none is open (nothing is left to be stale, e.g. once
// expire_after resolved them).
SourcePoll PushSweepPoll(const PushCondition& condition, std::span<const Incident> open,
                         WallTime now);

}  // namespace quell::core
