#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include "quell/app/backoff.h"
#include "quell/core/delivery/grouping.h"
#include "quell/core/delivery/sms_policy.h"
#include "quell/core/ports/channel.h"
#include "quell/core/ports/outbox_store.h"
#include "quell/core/result.h"

namespace quell::app {

// How one configured channel is driven.
struct ChannelLimits {
  uint32_t concurrency = 8;   // sends in flight at once on this channel
  uint32_t max_attempts = 8;  // attempts in all, the first included; then the row goes dead
  // How long a row may keep being throttled (429, 503: SendOutcome::throttled) before it goes
  // dead, counted from the first throttled answer of the current run. Throttled answers do not
  // use up max_attempts: a provider shedding load for an hour must not cost the page.
  core::Duration throttle_budget = std::chrono::hours(6);
  // The delays between attempts (max_attempts here is unused: the limit above counts).
  RetryPolicy backoff{.max_attempts = 8,
                      .initial_backoff = std::chrono::seconds(1),
                      .max_backoff = std::chrono::minutes(10),
                      .multiplier = 2.0,
                      .max_retry_after = std::chrono::hours(1)};
  // SMS channels: the recipient's pacing (minimum interval, quiet hours, daily cap). A row the
  // rules hold is deferred, not failed: it goes back to pending without using an attempt.
  std::optional<core::SmsPacingRules> pacing;
  // Grouped notifications (core/delivery/grouping.h): the channel's rows wait in their groups
  // and go out as group messages, which the dispatcher assembles when due. nullopt: one message
  // per transition.
  std::optional<core::GroupPolicy> grouping;
};

// What a failed exchange means: transport errors that may pass (timeouts, refused or reset
// connections) retry; the rest (a malformed URL, a TLS certificate rejected) cannot succeed.
core::SendOutcome TransportOutcome(const core::Error& error);

// What the store records for one attempt of `row` (as claimed: attempts does not count this
// one yet): sent; a retry rescheduled after the provider's Retry-After (capped) or a jittered
// exponential backoff drawn from `random_bits`; dead for a permanent failure, once
// `limits.max_attempts` ran out, or for a throttled send once `limits.throttle_budget` has
// passed since the row's throttled_since. The error of a death says which limit ended it. The
// channel's error is redacted (core::RedactErrorText: URLs by query names only, secrets and
// personal data replaced) before it becomes the row's last_error and the timeline's detail.
core::OutboxOutcome DecideOutcome(const core::OutboxRow& row, const core::SendOutcome& sent,
                                  const ChannelLimits& limits, core::WallTime now,
                                  uint64_t random_bits);

}  // namespace quell::app
