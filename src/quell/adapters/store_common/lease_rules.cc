#include "quell/adapters/store_common/lease_rules.h"

#include "quell/core/ports/incident_store.h"

namespace quell::store {

core::LeaseClaim NextLease(const std::optional<core::Lease>& current, std::string_view name,
                           std::string_view holder, core::WallTime now, core::Duration ttl) {
  core::LeaseClaim claim;
  if (!current) {
    claim.held = true;
    claim.acquired = true;
    claim.lease.name = std::string(name);
    claim.lease.holder = std::string(holder);
    claim.lease.token = 1;
    claim.lease.expires_at = now + ttl;
    claim.lease.acquired_at = now;
    claim.lease.renewed_at = now;
    return claim;
  }
  claim.lease = *current;
  if (current->holder == holder) {
    // A renewal, even past the expiry: nobody held it in between (the holder would differ),
    // so the token the holder's polls carry is still the right one.
    claim.held = true;
    claim.lease.expires_at = now + ttl;
    claim.lease.renewed_at = now;
    return claim;
  }
  if (!current->holder.empty() && current->expires_at > now) return claim;  // someone else's
  claim.held = true;
  claim.acquired = true;
  claim.previous_holder = current->holder;  // empty when it was released
  claim.lease.holder = std::string(holder);
  claim.lease.token = current->token + 1;
  claim.lease.expires_at = now + ttl;
  claim.lease.acquired_at = now;
  claim.lease.renewed_at = now;
  return claim;
}

std::string FencedMessage(std::string_view lease, uint64_t token, bool exists) {
  const std::string head = std::string(core::kFencedPrefix) + "lease " + std::string(lease);
  if (!exists) return head + " is not held";
  return head + " was taken over (token " + std::to_string(token) +
         " is no longer current); this poll commits nothing";
}

}  // namespace quell::store
