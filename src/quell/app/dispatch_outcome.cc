#include "quell/app/dispatch_outcome.h"

#include <algorithm>
#include <string>

namespace quell::app {

core::SendOutcome TransportOutcome(const core::Error& error) {
  if (error.IsRetryable()) return core::SendOutcome::Retry(error.message);
  return core::SendOutcome::Permanent(error.message);
}

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
      if (row.attempts < std::max<uint32_t>(limits.max_attempts, 1)) {
        out.kind = core::OutboxOutcome::Kind::kReschedule;
        out.error = sent.error;
        // attempts counts the one that just failed, so the first retry waits retry_index 0.
        const core::Duration wait =
            sent.retry_after ? std::min(*sent.retry_after, limits.backoff.max_retry_after)
                             : BackoffDelay(limits.backoff, row.attempts > 0 ? row.attempts - 1 : 0,
                                            random_bits);
        out.next_attempt_at = now + wait;
        return out;
      }
      out.kind = core::OutboxOutcome::Kind::kDead;
      out.error = sent.error + " (gave up after " + std::to_string(row.attempts) + " attempts)";
      return out;
    case core::SendOutcome::Kind::kPermanent:
      break;
  }
  out.kind = core::OutboxOutcome::Kind::kDead;
  out.error = sent.error;
  return out;
}

}  // namespace quell::app
