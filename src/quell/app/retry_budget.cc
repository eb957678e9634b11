#include "quell/app/retry_budget.h"

namespace quell::app {

RetryBudget::RetryBudget(core::Duration total)
    : remaining_us_(total > core::Duration::zero() ? total.count() : 0) {}

bool RetryBudget::TryConsume(core::Duration wait) {
  const core::Duration::rep want = wait > core::Duration::zero() ? wait.count() : 0;
  core::Duration::rep left = remaining_us_.load();
  // On a lost race compare_exchange reloads `left`, and the check runs again on the new value.
  while (want <= left) {
    if (remaining_us_.compare_exchange_weak(left, left - want)) return true;
  }
  return false;
}

core::Duration RetryBudget::remaining() const { return core::Duration{remaining_us_.load()}; }

}  // namespace quell::app
