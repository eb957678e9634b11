#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "quell/app/poller.h"
#include "quell/app/run_listener.h"
#include "quell/core/ports/event_log.h"
#include "quell/core/ports/lease_store.h"
#include "quell/core/text/time.h"

namespace quell::app {

// This process as the other instances see it (core::InstanceSeen).
struct InstanceIdentity {
  std::string id;  // the lease holder id: host:pid:random
  std::string host;
  uint64_t pid = 0;
  std::string version;
  core::WallTime started_at{};
};

// A poll lease a config needs: its name (app/poll_leases.h) and the interval of the polls it
// guards, which paces a takeover.
struct PollLease {
  std::string name;
  core::Duration interval{};
};

struct LeaseSet {
  std::vector<PollLease> leases;
  core::Duration length = std::chrono::seconds(15);  // polling.lease
};

// What /healthz asks of the keeper.
struct KeeperState {
  bool holds_any = false;                       // at least one lease usable for polling now
  std::optional<core::MonoTime> reached_store;  // the last turn whose store calls all answered
  std::optional<core::MonoTime> polling_since;  // holds_any: since when, unbroken
};

// Keeps this instance's poll leases (core/ports/lease_store.h) on its own store connection:
// each turn renews what it holds, tries to take what it does not, and records the instance.
// A lease counts as held only until (the turn's monotonic start) + length - length/5, so a
// holder that cannot renew stops polling before its lease ends in the store; a lease just taken
// is not polled before its last poll + interval, so a failover never puts two polls of one
// group closer than an interval. Pure logic: time comes in; DaemonRuntime runs Tick on a thread.
// Tick, ReleaseAll and Replace are for one thread at a time; Held and State for any thread.
class LeaseKeeper {
 public:
  // `store`, `log` and `listeners` must outlive the keeper (the listeners vector is read at
  // each event, so listeners added before the first Tick are heard).
  LeaseKeeper(core::LeaseStore& store, core::EventLog& log, InstanceIdentity self, LeaseSet set,
              const std::vector<RunListener*>& listeners);

  // The config's leases after a reload: taken at the next Tick, which releases those no longer
  // wanted.
  void Replace(LeaseSet set);
  // One turn at wall `now` and monotonic `mono` (read before the first store call). Returns
  // when the next turn is due.
  core::MonoTime Tick(core::WallTime now, core::MonoTime mono);
  // Gives up every lease held, so a standby takes over at its next try (at stop, after the
  // poll thread stopped).
  void ReleaseAll(core::WallTime now);

  // The leases this instance may poll under at `mono`, with their tokens.
  HeldLeases Held(core::MonoTime mono) const;
  KeeperState State(core::MonoTime mono) const;
  // Between turns: min(length/3, the smallest interval), at least 100 ms.
  core::Duration Period() const;

 private:
  struct Entry {
    core::Duration interval{};
    bool holding = false;
    uint64_t token = 0;
    core::MonoTime held_until{};
    core::MonoTime poll_from{};  // a takeover waits for the last poll + interval
    std::string last_error;      // the last failed renewal, for lease.lost
  };

  // `store_error` gets the store's error when it is the turn's first.
  void Acquire(const PollLease& want, core::Duration length, core::WallTime now,
               core::MonoTime mono, std::string& store_error);
  void Lose(const std::string& name, Entry& entry, const std::string& holder,
            const std::string& why);
  void Release(const std::string& name, Entry& entry, core::WallTime now);

  core::LeaseStore& store_;
  core::EventLog& log_;
  const InstanceIdentity self_;
  const std::vector<RunListener*>& listeners_;
  std::string last_store_error_;  // the Tick thread's

  mutable std::mutex mu_;
  LeaseSet set_;                                       // guarded by mu_
  bool set_changed_ = true;                            // guarded by mu_
  std::map<std::string, Entry, std::less<>> entries_;  // written under mu_ by the Tick thread
  std::optional<core::MonoTime> reached_store_;        // guarded by mu_
};

}  // namespace quell::app
