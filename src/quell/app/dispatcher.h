#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "quell/app/backoff.h"
#include "quell/core/ports/channel.h"
#include "quell/core/ports/clock.h"
#include "quell/core/ports/outbox_store.h"

namespace quell::app {

// How one configured channel is driven.
struct ChannelLimits {
  uint32_t concurrency = 8;   // sends in flight at once on this channel
  uint32_t max_attempts = 8;  // then the row goes dead
  RetryPolicy backoff{.max_attempts = 8,
                      .initial_backoff = std::chrono::seconds(1),
                      .max_backoff = std::chrono::minutes(10),
                      .multiplier = 2.0,
                      .max_retry_after = std::chrono::hours(1)};
};

struct DispatcherOptions {
  std::string owner;  // this dispatcher's lease owner id, unique per process
  core::Duration lease = std::chrono::seconds(60);
  size_t claim_batch = 256;
  // Where a meta-alert goes when a row dies; empty: nowhere (the row stays visible as dead).
  std::string dead_letter_channel;
  uint64_t seed = 0;  // for jitter
};

struct DispatchReport {
  uint64_t claimed = 0;
  uint64_t sent = 0;
  uint64_t retried = 0;
  uint64_t dead = 0;
  uint64_t lost_leases = 0;  // the lease expired mid-send; the new holder resends
  uint64_t meta_alerts = 0;
  std::vector<std::string> errors;  // store errors, one line each
};

// Delivers committed outbox rows: claims due rows with a lease, renders and sends them
// concurrently (bounded per channel), and records each outcome. A transient failure is
// rescheduled with backoff and jitter (or the provider's Retry-After) until the channel's
// attempt limit, then the row goes dead and a meta-alert is sent through the dead-letter
// channel. A permanent failure goes dead at once. Rows keep their order per incident and
// channel because the store never leases a row while an older sibling is unsent; one batch
// holds at most one row per (key, channel) for the same reason. Not thread-safe.
class Dispatcher {
 public:
  Dispatcher(core::OutboxStore& store, const core::MessageRenderer& renderer, core::Clock& clock,
             DispatcherOptions options);

  // `name` is the channel name outbox rows carry; `type` picks the templates ("webhook",
  // "slack", "email", "sms", "pagerduty"). The channel must outlive the dispatcher.
  void AddChannel(std::string name, std::string type, core::Channel& channel,
                  ChannelLimits limits = {});

  // Claims one batch and delivers it; returns what happened. "now" is read from the clock at
  // the claim and again for each outcome.
  DispatchReport RunOnce();

 private:
  struct Route {
    std::string type;
    core::Channel* channel;
    ChannelLimits limits;
  };
  struct Attempt;

  void Deliver(Attempt& attempt);
  void Record(Attempt& attempt, DispatchReport& report);
  core::Status RecordOne(const core::OutboxOutcome& outcome, core::WallTime now);
  void SendMetaAlert(const core::OutboxRow& row, const std::string& why, DispatchReport& report);
  core::Duration Backoff(const ChannelLimits& limits, const core::OutboxRow& row,
                         const core::SendOutcome& outcome);

  core::OutboxStore& store_;
  const core::MessageRenderer& renderer_;
  core::Clock& clock_;
  DispatcherOptions options_;
  std::map<std::string, Route, std::less<>> routes_;
  uint64_t random_state_;
};

}  // namespace quell::app
