#include "quell/app/lease_keeper.h"

#include <algorithm>
#include <utility>

namespace quell::app {
namespace {

using core::LogLevel;

// Instances not seen for this long leave the list `quell status` shows.
constexpr core::Duration kForgetInstancesAfter = std::chrono::hours(24);
constexpr core::Duration kShortestPeriod = std::chrono::milliseconds(100);

// The part of a lease this instance polls under: it stops a fifth of the lease early, so a
// late renewal or a slow clock never lets it poll past the lease's end in the store.
core::Duration UsableFor(core::Duration length) { return length - length / 5; }

}  // namespace

LeaseKeeper::LeaseKeeper(core::LeaseStore& store, core::EventLog& log, InstanceIdentity self,
                         LeaseSet set, const std::vector<RunListener*>& listeners)
    : store_(store),
      log_(log),
      self_(std::move(self)),
      listeners_(listeners),
      set_(std::move(set)) {}

void LeaseKeeper::Replace(LeaseSet set) {
  const std::lock_guard lock(mu_);
  set_ = std::move(set);
  set_changed_ = true;
}

core::Duration LeaseKeeper::Period() const {
  const std::lock_guard lock(mu_);
  core::Duration period = set_.length / 3;
  for (const PollLease& lease : set_.leases) period = std::min(period, lease.interval);
  return std::max(period, kShortestPeriod);
}

core::MonoTime LeaseKeeper::Tick(core::WallTime now, core::MonoTime mono) {
  LeaseSet set;
  bool changed = false;
  {
    const std::lock_guard lock(mu_);
    set = set_;
    changed = set_changed_;
    set_changed_ = false;
  }
  if (changed) {
    // A reload that no longer polls a lease gives it up for whoever polls it now.
    for (auto it = entries_.begin(); it != entries_.end();) {
      const bool wanted = std::any_of(set.leases.begin(), set.leases.end(),
                                      [&](const PollLease& l) { return l.name == it->first; });
      if (wanted) {
        ++it;
        continue;
      }
      if (it->second.holding) Release(it->first, it->second, now);
      const std::lock_guard lock(mu_);
      it = entries_.erase(it);
    }
    std::vector<std::string> names;
    for (const PollLease& lease : set.leases) names.push_back(lease.name);
    for (RunListener* listener : listeners_) listener->OnLeasesWanted(names);
  }
  std::string store_error;  // the turn's first
  for (const PollLease& want : set.leases) Acquire(want, set.length, now, mono, store_error);
  core::InstanceSeen seen{.id = self_.id,
                          .host = self_.host,
                          .pid = self_.pid,
                          .version = self_.version,
                          .started_at = self_.started_at,
                          .last_seen_at = now};
  if (core::Status status = store_.SeeInstance(seen, now - kForgetInstancesAfter);
      !status && store_error.empty()) {
    store_error = status.error().message;
  }
  // Said when it starts, changes and ends, not every turn.
  if (!store_error.empty() && store_error != last_store_error_) {
    log_.Log(LogLevel::kWarn, "lease.store_error",
             {{"error", store_error}, {"retry", "every turn until the store answers"}});
  } else if (store_error.empty() && !last_store_error_.empty()) {
    log_.Log(LogLevel::kInfo, "lease.store_recovered", {});
  }
  last_store_error_ = store_error;
  const bool reached = store_error.empty();
  // A holder that could not renew stops polling before its lease ends in the store.
  for (auto& [name, entry] : entries_) {
    if (entry.holding && mono >= entry.held_until) {
      Lose(name, entry, "",
           "not renewed within lease - lease/5" +
               (entry.last_error.empty() ? std::string() : ": " + entry.last_error));
    }
  }
  // A standby makes no poll writes, so nothing else would ever clear a failure its poll side
  // reported before it stood by (an outage while it polled): /readyz would stay red on an
  // instance whose store works. This turn's writes went through, so that outage is over.
  const bool holds_none = std::none_of(entries_.begin(), entries_.end(),
                                       [](const auto& entry) { return entry.second.holding; });
  if (reached && !set.leases.empty() && holds_none) {
    for (RunListener* listener : listeners_) listener->OnStoreWrites("poll", core::Status{});
  }
  const std::lock_guard lock(mu_);
  if (reached) reached_store_ = mono;
  core::Duration period = set.length / 3;
  for (const PollLease& lease : set.leases) period = std::min(period, lease.interval);
  return mono + std::max(period, kShortestPeriod);
}

void LeaseKeeper::Acquire(const PollLease& want, core::Duration length, core::WallTime now,
                          core::MonoTime mono, std::string& store_error) {
  Entry* found = nullptr;
  {
    const std::lock_guard lock(mu_);  // Held iterates the map on other threads
    found = &entries_[want.name];
  }
  Entry& entry = *found;
  entry.interval = want.interval;
  auto claim = store_.Acquire(want.name, self_.id, now, length);
  if (!claim) {
    if (store_error.empty()) store_error = claim.error().message;
    entry.last_error = claim.error().message;
    return;
  }
  entry.last_error.clear();
  if (!claim->held) {
    if (entry.holding) Lose(want.name, entry, claim->lease.holder, "taken over");
    return;
  }
  const bool fresh = !entry.holding || entry.token != claim->lease.token;
  {
    const std::lock_guard lock(mu_);
    entry.held_until = mono + UsableFor(length);
    if (!fresh) return;
    entry.holding = true;
    entry.token = claim->lease.token;
    // Converted to monotonic time now: the last poll (by any holder) + interval.
    entry.poll_from = mono;
    if (claim->lease.polled_at) {
      const core::Duration wait = *claim->lease.polled_at + want.interval - now;
      if (wait > core::Duration::zero()) entry.poll_from = mono + wait;
    }
  }
  const bool takeover = claim->acquired && !claim->previous_holder.empty();
  log_.Log(LogLevel::kInfo, "lease.acquired",
           {{"lease", want.name},
            {"token", claim->lease.token},
            {"previous_holder", claim->previous_holder},
            {"takeover", takeover}});
  for (RunListener* listener : listeners_) {
    listener->OnLeaseAcquired(want.name, claim->lease.token, takeover);
  }
}

void LeaseKeeper::Lose(const std::string& name, Entry& entry, const std::string& holder,
                       const std::string& why) {
  {
    const std::lock_guard lock(mu_);
    entry.holding = false;
  }
  log_.Log(LogLevel::kWarn, "lease.lost",
           {{"lease", name}, {"token", entry.token}, {"holder", holder}, {"why", why}});
  for (RunListener* listener : listeners_) listener->OnLeaseLost(name, entry.token);
}

void LeaseKeeper::Release(const std::string& name, Entry& entry, core::WallTime now) {
  {
    const std::lock_guard lock(mu_);
    entry.holding = false;
  }
  // A failed release costs a standby one lease of waiting, nothing more.
  if (core::Status status = store_.Release(name, self_.id, entry.token, now); !status) {
    log_.Log(LogLevel::kWarn, "lease.store_error",
             {{"lease", name}, {"error", status.error().message}});
    return;
  }
  log_.Log(LogLevel::kInfo, "lease.released", {{"lease", name}, {"token", entry.token}});
  for (RunListener* listener : listeners_) listener->OnLeaseReleased(name, entry.token);
}

void LeaseKeeper::ReleaseAll(core::WallTime now) {
  for (auto& [name, entry] : entries_) {
    if (entry.holding) Release(name, entry, now);
  }
}

HeldLeases LeaseKeeper::Held(core::MonoTime mono) const {
  const std::lock_guard lock(mu_);
  HeldLeases held;
  for (const auto& [name, entry] : entries_) {
    if (entry.holding && mono < entry.held_until && mono >= entry.poll_from) {
      held.emplace(name, entry.token);
    }
  }
  return held;
}

KeeperState LeaseKeeper::State(core::MonoTime mono) const {
  KeeperState state;
  const std::lock_guard lock(mu_);
  for (const auto& [name, entry] : entries_) {
    if (!entry.holding || mono >= entry.held_until || mono < entry.poll_from) continue;
    state.holds_any = true;
    if (!state.polling_since || entry.poll_from < *state.polling_since) {
      state.polling_since = entry.poll_from;
    }
  }
  state.reached_store = reached_store_;
  return state;
}

}  // namespace quell::app
