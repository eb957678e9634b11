#include "quell/adapters/system/system_clock.h"

#include <chrono>
#include <thread>

namespace quell::system {

core::WallTime SystemClock::Now() {
  // floor, not duration_cast: before 1970 truncation toward zero would round up.
  return std::chrono::floor<core::Duration>(std::chrono::system_clock::now());
}

core::MonoTime SystemClock::Monotonic() {
  return core::MonoTime(std::chrono::duration_cast<core::Duration>(
      std::chrono::steady_clock::now().time_since_epoch()));
}

void SystemClock::SleepFor(core::Duration d) {
  if (d > core::Duration::zero()) std::this_thread::sleep_for(d);
}

bool SystemClock::WaitFor(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                          core::Duration d, const std::function<bool()>& done) {
  if (d <= core::Duration::zero()) return done();
  return cv.wait_for(lock, d, done);
}

}  // namespace quell::system
