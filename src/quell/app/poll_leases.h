#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "quell/core/conditions/condition.h"
#include "quell/core/text/time.h"

namespace quell::app {

// The names of the poll leases (core/ports/lease_store.h). Instances agree on who polls what
// only through these names, so they must not change between versions: a rolling upgrade runs
// old and new instances against one store.

// The lease of the conditions polled through `source` (the poller's source name, e.g.
// "infrai error groups") every `interval`: "poll/infrai-error-groups/1m0s". Conditions sharing a
// source and an interval share one listing per cycle, so they share one lease.
std::string PollLeaseName(std::string_view source, core::Duration interval);

// The source name of push conditions' stale sweeps (Poller::Watch(PushCondition)): they ask no
// remote, only the store, yet hold a lease like any poll so that one instance sweeps.
inline constexpr std::string_view kPushSource = "push";

// The lease of shard `shard` (0-based) of `shards` of a sharded condition:
// "poll/infrai-error-groups/1m0s/checkout/shard-1-of-4" (1-based in the name, as people count).
std::string ShardLeaseName(std::string_view source, core::Duration interval,
                           std::string_view condition, uint32_t shard, uint32_t shards);

// The shard (0-based) a dedupe key belongs to: FNV-1a (64 bit) of its bytes, modulo `shards`.
// Fixed forever for the same reason as the names; `shards` must be at least 1.
uint32_t ShardOf(std::string_view key, uint32_t shards);

// One part of a condition's poll: the whole condition, or one shard of it, and its lease.
struct PollPart {
  std::string lease;
  uint32_t shard = 0;  // 0-based
  uint32_t shards = 1;
  // Whether `key` is this part's: always for an unsharded condition.
  bool Keeps(std::string_view key) const;
  // What a shard adds to its condition's marks and poll ids ("/shard-1-of-4"); "" unsharded.
  std::string Suffix() const;
};

// The parts of `common` read through `source` (the poller's source name): one, or one per
// shard, each under its lease. The poller polls by these and `quell status` expects them.
std::vector<PollPart> PollPartsOf(const core::ConditionCommon& common, std::string_view source);

}  // namespace quell::app
