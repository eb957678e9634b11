#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "quell/core/ports/incident_store.h"
#include "quell/core/ports/lease_store.h"

namespace quell::testing {

// An in-memory LeaseStore with the port's semantics, shared by several keepers (instances) in
// one test, and the FencePoll check their polls' transactions make against it. Thread-safe.
class FakeLeaseStore : public core::LeaseStore {
 public:
  // The next `n` calls of any kind fail with `code` (a store that stopped answering).
  void FailNext(int n, core::ErrorCode code = core::ErrorCode::kUnavailable) {
    const std::lock_guard lock(mu_);
    failures_ = n;
    code_ = code;
  }

  core::Result<core::LeaseClaim> Acquire(std::string_view name, std::string_view holder,
                                         core::WallTime now, core::Duration ttl) override {
    const std::lock_guard lock(mu_);
    if (auto failed = Failure(); !failed) return failed.error();
    core::Lease& lease = leases_[std::string(name)];
    lease.name = std::string(name);
    core::LeaseClaim claim;
    const bool free = lease.holder.empty() || lease.expires_at <= now;
    if (lease.holder == holder && lease.expires_at > now) {
      lease.expires_at = now + ttl;
      lease.renewed_at = now;
      claim.held = true;
    } else if (free || lease.holder == holder) {
      claim.previous_holder = lease.holder;
      claim.acquired = lease.holder != holder;
      if (lease.holder != holder) ++lease.token;
      lease.holder = std::string(holder);
      lease.acquired_at = now;
      lease.renewed_at = now;
      lease.expires_at = now + ttl;
      claim.held = true;
    }
    claim.lease = lease;
    return claim;
  }

  core::Status Release(std::string_view name, std::string_view holder, uint64_t token,
                       core::WallTime now) override {
    const std::lock_guard lock(mu_);
    if (auto failed = Failure(); !failed) return failed;
    auto it = leases_.find(std::string(name));
    if (it == leases_.end() || it->second.holder != holder || it->second.token != token) return {};
    it->second.holder.clear();
    it->second.expires_at = now;
    return {};
  }

  core::Result<std::vector<core::Lease>> ListLeases() override {
    const std::lock_guard lock(mu_);
    std::vector<core::Lease> out;
    for (const auto& [name, lease] : leases_) out.push_back(lease);
    return out;
  }

  core::Status SeeInstance(const core::InstanceSeen& instance,
                           core::WallTime forget_before) override {
    const std::lock_guard lock(mu_);
    if (auto failed = Failure(); !failed) return failed;
    instances_[instance.id] = instance;
    std::erase_if(instances_,
                  [&](const auto& entry) { return entry.second.last_seen_at < forget_before; });
    return {};
  }

  core::Result<std::vector<core::InstanceSeen>> ListInstances() override {
    const std::lock_guard lock(mu_);
    std::vector<core::InstanceSeen> out;
    for (const auto& [id, instance] : instances_) out.push_back(instance);
    return out;
  }

  // StoreTransaction::FencePoll against these leases: moves polled_at when `token` is current.
  core::Status Fence(std::string_view name, uint64_t token, core::WallTime at) {
    const std::lock_guard lock(mu_);
    auto it = leases_.find(std::string(name));
    if (it == leases_.end() || it->second.token != token) {
      return core::MakeError(core::ErrorCode::kConflict,
                             std::string(core::kFencedPrefix) + "lease " + std::string(name) +
                                 " was taken over (token " + std::to_string(token) +
                                 " is no longer current)");
    }
    it->second.polled_at = at;
    return {};
  }

  core::Lease Get(const std::string& name) {
    const std::lock_guard lock(mu_);
    return leases_[name];
  }

 private:
  core::Status Failure() {
    if (failures_ <= 0) return {};
    --failures_;
    return core::MakeError(code_, "injected lease store failure");
  }

  std::mutex mu_;
  std::map<std::string, core::Lease> leases_;
  std::map<std::string, core::InstanceSeen> instances_;
  int failures_ = 0;
  core::ErrorCode code_ = core::ErrorCode::kUnavailable;
};

}  // namespace quell::testing
