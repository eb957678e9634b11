#include "quell/app/store_health.h"

#include <algorithm>

namespace quell::app {

void StoreHealth::OnStoreWrites(std::string_view side, const core::Status& status) {
  const std::lock_guard lock(mu_);
  if (status) {
    if (auto it = failing_.find(side); it != failing_.end()) failing_.erase(it);
    return;
  }
  failing_.insert_or_assign(std::string(side), status.error().message);
}

core::Status StoreHealth::Status() const {
  const std::lock_guard lock(mu_);
  if (failing_.empty()) return {};
  const auto& [side, error] = *failing_.begin();
  return core::MakeError(core::ErrorCode::kUnavailable, side + ": " + error);
}

StoreOutage::Change StoreOutage::Observe(const std::string& store_error) {
  if (store_error.empty()) {
    if (failures_ == 0) return Change::kNone;
    last_failures_ = failures_;
    failures_ = 0;
    return Change::kEnded;
  }
  return ++failures_ == 1 ? Change::kStarted : Change::kNone;
}

core::Duration StoreOutage::Wait(core::Duration usual) const {
  if (failures_ == 0) return usual;
  core::Duration backoff = kFirstWait;
  for (uint64_t i = 1; i < failures_ && backoff < kMaxWait; ++i) backoff *= 2;
  return std::max(usual, std::min(backoff, kMaxWait));
}

}  // namespace quell::app
