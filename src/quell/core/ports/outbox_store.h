#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "quell/core/ports/outbox_row.h"
#include "quell/core/result.h"
#include "quell/core/time.h"

namespace quell::core {

// The dispatcher's side of the outbox. Every method is one short transaction; implementations
// are safe to use from several processes at once (one instance per thread).
class OutboxStore {
 public:
  virtual ~OutboxStore() = default;

  // Leases up to `limit` due rows to `owner` until now + lease and returns them in (key,
  // channel, generation, version) order, attempts already counted. Due: pending with
  // next_attempt_at <= now, or in_flight with an expired lease (its dispatcher died; the row is
  // resent with the same idempotency key). A row is never claimed while an older row of the
  // same key and channel is still pending or in flight, so sends keep their order; shadow,
  // sent, dead and superseded rows never are. Two owners never hold one row.
  virtual Result<std::vector<OutboxRow>> ClaimDue(std::string_view owner, WallTime now,
                                                  Duration lease, size_t limit) = 0;

  // Records a delivery, as IncidentStore::MarkSent, only while `owner` still holds the lease:
  // kConflict when the lease expired and another owner took the row (it will send it again
  // with the same key, which is why every channel carries it).
  virtual Status CompleteSent(std::string_view idempotency_key, std::string_view owner,
                              std::string_view remote_message_id, WallTime now) = 0;

  // Returns the row to pending for another attempt at `next_attempt_at`, keeping `error`.
  // kConflict when `owner` no longer holds the lease.
  virtual Status Reschedule(std::string_view idempotency_key, std::string_view owner,
                            std::string_view error, WallTime next_attempt_at, WallTime now) = 0;

  // Gives up on the row: status dead with its last error. kConflict as above.
  virtual Status MarkDead(std::string_view idempotency_key, std::string_view owner,
                          std::string_view error, WallTime now) = 0;

  // The remote id of the earliest sent row of (key, generation, channel), for threading
  // follow-ups; empty when none was sent.
  virtual Result<std::string> ThreadRemoteId(std::string_view key, uint64_t generation,
                                             std::string_view channel) = 0;
};

}  // namespace quell::core
