#include "quell/app/run_control.h"

namespace quell::app {

void RunControl::RequestStop() {
  {
    const std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
}

void RunControl::RequestReload() {
  {
    const std::lock_guard lock(mu_);
    reload_ = true;
  }
  cv_.notify_all();
}

void RunControl::Wake() {
  {
    const std::lock_guard lock(mu_);
    ++wakes_;
  }
  cv_.notify_all();
}

bool RunControl::stop_requested() const {
  const std::lock_guard lock(mu_);
  return stop_;
}

bool RunControl::TakeReload() {
  const std::lock_guard lock(mu_);
  const bool pending = reload_;
  reload_ = false;
  return pending;
}

void RunControl::WaitFor(core::Clock& clock, core::Duration d, bool on_reload) {
  std::unique_lock lock(mu_);
  const uint64_t wakes = wakes_;
  clock.WaitFor(lock, cv_, d, [&] { return stop_ || wakes_ != wakes || (on_reload && reload_); });
}

}  // namespace quell::app
