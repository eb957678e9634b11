#include "quell/app/cluster_status.h"

#include <algorithm>
#include <map>
#include <utility>

namespace quell::app {

ClusterStatus JoinClusterStatus(std::vector<core::Lease> leases,
                                std::vector<core::InstanceSeen> instances,
                                std::span<const ExpectedLease> expected, core::WallTime now,
                                core::Duration live_within) {
  ClusterStatus status;
  status.now = now;
  std::map<std::string, core::Lease, std::less<>> by_name;
  for (core::Lease& lease : leases) {
    std::string name = lease.name;
    by_name.emplace(std::move(name), std::move(lease));
  }
  const auto group_of = [now](std::string lease, std::vector<std::string> conditions,
                              std::optional<core::Lease> stored) {
    PollGroupStatus group{std::move(lease), std::move(conditions), std::move(stored)};
    group.held = group.stored && !group.stored->holder.empty() && group.stored->expires_at > now;
    return group;
  };
  for (const ExpectedLease& want : expected) {
    std::optional<core::Lease> stored;
    if (auto it = by_name.find(want.lease); it != by_name.end()) {
      stored = std::move(it->second);
      by_name.erase(it);
    }
    status.poll_groups.push_back(group_of(want.lease, want.conditions, std::move(stored)));
  }
  for (auto& [name, lease] : by_name) {
    status.poll_groups.push_back(group_of(name, {}, std::move(lease)));
  }
  std::sort(instances.begin(), instances.end(),
            [](const auto& a, const auto& b) { return a.id < b.id; });
  for (core::InstanceSeen& seen : instances) {
    const bool live = seen.last_seen_at + live_within >= now;
    status.instances.push_back(InstanceStatus{std::move(seen), live});
  }
  return status;
}

core::Result<ClusterStatus> ReadClusterStatus(core::LeaseStore& store,
                                              std::span<const ExpectedLease> expected,
                                              core::WallTime now, core::Duration live_within) {
  auto leases = store.ListLeases();
  if (!leases) return leases.error();
  auto instances = store.ListInstances();
  if (!instances) return instances.error();
  return JoinClusterStatus(std::move(*leases), std::move(*instances), expected, now, live_within);
}

}  // namespace quell::app
