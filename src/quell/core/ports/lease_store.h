#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::core {

// A poll group's lease as stored: who polls it, until when, and the fencing token that grows by
// one with every change of holder. A poll commits only while its token is the lease's
// (StoreTransaction::FencePoll), so a holder that paused past its lease and woke after another
// took over commits nothing.
struct Lease {
  std::string name;    // app/poll_leases.h names them
  std::string holder;  // an instance id (host:pid:random)
  uint64_t token = 0;  // 1 for the first holder ever
  WallTime expires_at{};
  WallTime acquired_at{};  // when this holder took it
  WallTime renewed_at{};
  std::optional<WallTime> polled_at;  // the last poll committed under it, by any holder
};

// The answer to an Acquire.
struct LeaseClaim {
  bool held = false;  // the caller holds the lease now (taken, or renewed)
  // The lease after the call: the caller's when held, else the other holder's.
  Lease lease;
  // Held, and the caller was not the holder before the call. previous_holder is who held it
  // (empty for a lease never held, or one its holder released).
  bool acquired = false;
  std::string previous_holder;
};

// One quell process as the others see it: written by its lease keeper at every turn.
struct InstanceSeen {
  std::string id;  // the lease holder id
  std::string host;
  uint64_t pid = 0;
  std::string version;
  WallTime started_at{};
  WallTime last_seen_at{};
};

// The poll leases and the instances seen, on their own store connection (the lease keeper's),
// so a renewal never waits behind a long poll transaction on the poller's connection. Times
// come from the caller's wall clock: instances sharing a store must keep their clocks in step
// (NTP) to well under a lease. Every call may fail with kUnavailable, kTimeout or kInternal.
class LeaseStore {
 public:
  virtual ~LeaseStore() = default;

  // Takes `name` for `holder` until now + ttl when it was never held, was released, has expired
  // (expires_at <= now) or is already `holder`'s (a renewal: the token stays). A new holder gets
  // the stored token + 1. Otherwise held is false and the lease is the current holder's.
  // Atomic across processes: of two instances racing for one lease, one holds it.
  virtual Result<LeaseClaim> Acquire(std::string_view name, std::string_view holder, WallTime now,
                                     Duration ttl) = 0;

  // Gives `name` up when `holder` still holds it with `token`: it expires at `now` and its holder
  // becomes empty (the token stays, so the next holder's is larger), and a standby takes it at
  // its next try instead of after the lease. A lease held by someone else is left as it is.
  virtual Status Release(std::string_view name, std::string_view holder, uint64_t token,
                         WallTime now) = 0;

  // Every lease, by name.
  virtual Result<std::vector<Lease>> ListLeases() = 0;

  // Inserts or refreshes `instance` (by id), and deletes instances not seen since `forget_before`.
  virtual Status SeeInstance(const InstanceSeen& instance, WallTime forget_before) = 0;

  // Every instance seen, by id.
  virtual Result<std::vector<InstanceSeen>> ListInstances() = 0;
};

}  // namespace quell::core
