#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "quell/core/ports/lease_store.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::app {

// A poll lease the running config polls under, with the conditions polled under it.
struct ExpectedLease {
  std::string lease;
  std::vector<std::string> conditions;
};

// One poll group as `quell status` and GET /v1/status show it.
struct PollGroupStatus {
  std::string lease;
  std::vector<std::string> conditions;  // empty when the config does not name this lease
  std::optional<core::Lease> stored;    // nullopt: never taken yet
  // Someone holds it now: a holder, and expires_at is still ahead.
  bool held = false;
};

struct InstanceStatus {
  core::InstanceSeen seen;
  bool live = false;  // seen within `live_within` (JoinClusterStatus)
};

struct ClusterStatus {
  core::WallTime now{};
  std::string instance;  // the instance answering; empty for the CLI
  std::vector<PollGroupStatus> poll_groups;
  std::vector<InstanceStatus> instances;
};

// Joins the stored leases and instances with the leases a config polls under: every expected
// lease first, in the config's order (a lease nobody has taken yet included, so a group that is
// not polled at all shows), then the stored leases no expected one names (another config's,
// or one a reload dropped). An instance is live when it was seen within `live_within`: the
// lease keeper sees itself every lease/3 at most, so a lease's worth is three missed turns.
ClusterStatus JoinClusterStatus(std::vector<core::Lease> leases,
                                std::vector<core::InstanceSeen> instances,
                                std::span<const ExpectedLease> expected, core::WallTime now,
                                core::Duration live_within);

// Reads the leases and the instances once from `store`, then joins them.
core::Result<ClusterStatus> ReadClusterStatus(core::LeaseStore& store,
                                              std::span<const ExpectedLease> expected,
                                              core::WallTime now, core::Duration live_within);

}  // namespace quell::app
