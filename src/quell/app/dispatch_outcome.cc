#include "quell/app/dispatch_outcome.h"

#include <algorithm>
#include <string>

#include "quell/core/redact/redact.h"

namespace quell::app {

core::SendOutcome TransportOutcome(const core::Error& error) {
  if (error.IsRetryable()) return core::SendOutcome::Retry(error.message);
  return core::SendOutcome::Permanent(error.message);
}

namespace {

core::Duration RetryWait(const core::SendOutcome& sent, const ChannelLimits& limits,
                         uint32_t retry_index, uint64_t random_bits) {
  if (sent.retry_after) return std::min(*sent.retry_after, limits.backoff.max_retry_after);
  return BackoffDelay(limits.backoff, retry_index, random_bits);
}

core::OutboxOutcome DecideRetry(const core::OutboxRow& row, const core::SendOutcome& sent,
                                const ChannelLimits& limits, core::WallTime now,
                                uint64_t random_bits) {
  core::OutboxOutcome out;
  out.idempotency_key = row.idempotency_key;
  out.error = core::RedactErrorText(sent.error);
  const uint32_t attempt = row.attempts + 1;  // this one, counted when recorded
  if (attempt < std::max<uint32_t>(limits.max_attempts, 1)) {
    out.kind = core::OutboxOutcome::Kind::kReschedule;
    // The first retry waits retry_index 0.
    out.next_attempt_at = now + RetryWait(sent, limits, attempt - 1, random_bits);
    return out;
  }
  out.kind = core::OutboxOutcome::Kind::kDead;
  out.error += " (gave up after " + std::to_string(attempt) + " attempts)";
  return out;
}

core::OutboxOutcome DecideThrottled(const core::OutboxRow& row, const core::SendOutcome& sent,
                                    const ChannelLimits& limits, core::WallTime now,
                                    uint64_t random_bits) {
  core::OutboxOutcome out;
  out.idempotency_key = row.idempotency_key;
  out.error = core::RedactErrorText(sent.error);
  out.throttled = true;
  const core::Duration throttled_for = now - row.throttled_since.value_or(now);
  if (throttled_for < limits.throttle_budget) {
    out.kind = core::OutboxOutcome::Kind::kReschedule;
    // Without a Retry-After, back off by the claims beyond the counted attempts: roughly the
    // throttled answers so far (BackoffDelay caps the wait at max_backoff).
    const uint32_t index = row.claims > row.attempts + 1 ? row.claims - row.attempts - 1 : 0;
    out.next_attempt_at = now + RetryWait(sent, limits, index, random_bits);
    return out;
  }
  out.kind = core::OutboxOutcome::Kind::kDead;
  out.error += " (rate limited for " + core::FormatDuration(throttled_for) + ", budget of " +
               core::FormatDuration(limits.throttle_budget) + " exhausted)";
  return out;
}

}  // namespace

core::OutboxOutcome DecideOutcome(const core::OutboxRow& row, const core::SendOutcome& sent,
                                  const ChannelLimits& limits, core::WallTime now,
                                  uint64_t random_bits) {
  core::OutboxOutcome out;
  out.idempotency_key = row.idempotency_key;
  switch (sent.kind) {
    case core::SendOutcome::Kind::kSent:
      out.kind = core::OutboxOutcome::Kind::kSent;
      out.remote_message_id = sent.remote_message_id;
      return out;
    case core::SendOutcome::Kind::kRetry:
      return sent.throttled ? DecideThrottled(row, sent, limits, now, random_bits)
                            : DecideRetry(row, sent, limits, now, random_bits);
    case core::SendOutcome::Kind::kPermanent:
      break;
  }
  out.kind = core::OutboxOutcome::Kind::kDead;
  out.error = core::RedactErrorText(sent.error);
  return out;
}

}  // namespace quell::app
