#include "quell/app/dispatcher.h"

#include <algorithm>
#include <memory>
#include <semaphore>
#include <utility>

#include "quell/app/bounded_parallel.h"

namespace quell::app {
namespace {

// splitmix64: a tiny, good-enough generator for jitter; deterministic for a given seed.
uint64_t NextRandom(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31U);
}

}  // namespace

struct Dispatcher::Attempt {
  core::Delivery delivery;
  const Route* route = nullptr;
  core::SendOutcome outcome;
};

Dispatcher::Dispatcher(core::OutboxStore& store, const core::MessageRenderer& renderer,
                       core::Clock& clock, DispatcherOptions options)
    : store_(store),
      renderer_(renderer),
      clock_(clock),
      options_(std::move(options)),
      random_state_(options_.seed) {}

void Dispatcher::AddChannel(std::string name, std::string type, core::Channel& channel,
                            ChannelLimits limits) {
  routes_.insert_or_assign(std::move(name), Route{std::move(type), &channel, limits});
}

DispatchReport Dispatcher::RunOnce() {
  DispatchReport report;
  auto claimed =
      store_.ClaimDue(options_.owner, clock_.Now(), options_.lease, options_.claim_batch);
  if (!claimed) {
    report.errors.push_back("claim: " + claimed.error().message);
    return report;
  }
  report.claimed = claimed->size();

  std::vector<Attempt> attempts;
  attempts.reserve(claimed->size());
  for (core::OutboxRow& row : *claimed) {
    Attempt attempt;
    const auto route = routes_.find(row.channel);
    if (route == routes_.end()) {
      // A channel removed from the config: nothing can ever send the row.
      attempt.outcome =
          core::SendOutcome::Permanent("no channel named \"" + row.channel + "\" is configured");
    } else {
      attempt.route = &route->second;
      if (row.transition != core::TransitionKind::kOpen) {
        auto thread = store_.ThreadRemoteId(row.key, row.generation, row.channel);
        if (thread) attempt.delivery.thread_remote_id = std::move(*thread);
      }
    }
    attempt.delivery.row = std::move(row);
    attempts.push_back(std::move(attempt));
  }

  // Sends run concurrently, bounded overall and per channel; outcomes are recorded afterwards
  // on this thread, because a store instance serves one thread.
  std::map<const Route*, std::unique_ptr<std::counting_semaphore<>>> slots;
  uint32_t total = 0;
  for (const auto& [name, route] : routes_) {
    slots.emplace(&route, std::make_unique<std::counting_semaphore<>>(route.limits.concurrency));
    total += route.limits.concurrency;
  }
  ForEachBounded(attempts.size(), std::max<uint32_t>(total, 1), [&](size_t i) {
    Attempt& attempt = attempts[i];
    if (attempt.route == nullptr) return;
    std::counting_semaphore<>& slot = *slots.at(attempt.route);
    slot.acquire();
    Deliver(attempt);
    slot.release();
  });
  for (Attempt& attempt : attempts) Record(attempt, report);
  return report;
}

void Dispatcher::Deliver(Attempt& attempt) {
  auto message = renderer_.Render(attempt.route->type, attempt.delivery.row);
  if (!message) {
    attempt.outcome = core::SendOutcome::Permanent("render: " + message.error().message);
    return;
  }
  attempt.delivery.message = std::move(*message);
  attempt.outcome = attempt.route->channel->Send(attempt.delivery);
}

core::Duration Dispatcher::Backoff(const ChannelLimits& limits, const core::OutboxRow& row,
                                   const core::SendOutcome& outcome) {
  if (outcome.retry_after) return std::min(*outcome.retry_after, limits.backoff.max_retry_after);
  const uint32_t retry_index = row.attempts == 0 ? 0 : row.attempts - 1;
  return BackoffDelay(limits.backoff, retry_index, NextRandom(random_state_));
}

void Dispatcher::Record(Attempt& attempt, DispatchReport& report) {
  const core::OutboxRow& row = attempt.delivery.row;
  const core::SendOutcome& outcome = attempt.outcome;
  const core::WallTime now = clock_.Now();
  core::Status recorded;
  std::string dead_reason;
  switch (outcome.kind) {
    case core::SendOutcome::Kind::kSent:
      recorded = RecordOne({.kind = core::OutboxOutcome::Kind::kSent,
                            .idempotency_key = row.idempotency_key,
                            .remote_message_id = outcome.remote_message_id,
                            .error = {},
                            .next_attempt_at = {}},
                           now);
      if (recorded) ++report.sent;
      break;
    case core::SendOutcome::Kind::kRetry:
      if (attempt.route != nullptr && row.attempts < attempt.route->limits.max_attempts) {
        recorded =
            RecordOne({.kind = core::OutboxOutcome::Kind::kReschedule,
                       .idempotency_key = row.idempotency_key,
                       .remote_message_id = {},
                       .error = outcome.error,
                       .next_attempt_at = now + Backoff(attempt.route->limits, row, outcome)},
                      now);
        if (recorded) ++report.retried;
        break;
      }
      dead_reason =
          outcome.error + " (gave up after " + std::to_string(row.attempts) + " attempts)";
      [[fallthrough]];
    case core::SendOutcome::Kind::kPermanent:
      if (dead_reason.empty()) dead_reason = outcome.error;
      recorded = RecordOne({.kind = core::OutboxOutcome::Kind::kDead,
                            .idempotency_key = row.idempotency_key,
                            .remote_message_id = {},
                            .error = dead_reason,
                            .next_attempt_at = {}},
                           now);
      if (recorded) {
        ++report.dead;
        SendMetaAlert(row, dead_reason, report);
      }
      break;
  }
  if (!recorded) {
    if (recorded.error().code == core::ErrorCode::kConflict) {
      ++report.lost_leases;
    } else {
      report.errors.push_back(row.idempotency_key + ": " + recorded.error().message);
    }
  }
}

core::Status Dispatcher::RecordOne(const core::OutboxOutcome& outcome, core::WallTime now) {
  auto statuses = store_.RecordOutcomes(options_.owner, std::span(&outcome, 1), now);
  if (!statuses) return statuses.error();
  return statuses->front();
}

void Dispatcher::SendMetaAlert(const core::OutboxRow& row, const std::string& why,
                               DispatchReport& report) {
  if (options_.dead_letter_channel.empty() || options_.dead_letter_channel == row.channel) return;
  const auto route = routes_.find(options_.dead_letter_channel);
  if (route == routes_.end()) return;
  core::Delivery meta;
  meta.row = row;
  meta.row.channel = options_.dead_letter_channel;
  // A distinct idempotency key: the meta-alert is its own message, sent once per dead row.
  meta.row.idempotency_key = row.idempotency_key + "-dead";
  meta.message.subject = "quell could not deliver " +
                         std::string(core::TransitionName(row.transition)) + " of " + row.key +
                         " to " + row.channel;
  meta.message.body = meta.message.subject + ": " + why + ". The outbox row " +
                      row.idempotency_key + " is dead; see `quell outbox list --status dead`.";
  meta.message.severity = "critical";
  if (route->second.channel->Send(meta).kind == core::SendOutcome::Kind::kSent) {
    ++report.meta_alerts;
  }
}

}  // namespace quell::app
