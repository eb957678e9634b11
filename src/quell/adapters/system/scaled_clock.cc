#include "quell/adapters/system/scaled_clock.h"

#include <algorithm>
#include <thread>

namespace quell::system {

ScaledClock::ScaledClock(core::WallTime start, double factor)
    : start_(start), factor_(std::max(factor, 1e-6)), origin_(std::chrono::steady_clock::now()) {}

core::WallTime ScaledClock::Now() {
  // Steady time, so a wall-clock step during the demo cannot move it backwards.
  return start_ + Monotonic().time_since_epoch();
}

core::MonoTime ScaledClock::Monotonic() {
  const std::chrono::duration<double, std::micro> real = std::chrono::steady_clock::now() - origin_;
  return core::MonoTime(std::chrono::duration_cast<core::Duration>(real * factor_));
}

void ScaledClock::SleepFor(core::Duration d) {
  if (d <= core::Duration::zero()) return;
  const std::chrono::duration<double, std::micro> scaled = d;
  std::this_thread::sleep_for(
      std::chrono::duration_cast<std::chrono::microseconds>(scaled / factor_));
}

bool ScaledClock::WaitFor(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                          core::Duration d, const std::function<bool()>& done) {
  if (d <= core::Duration::zero()) return done();
  const std::chrono::duration<double, std::micro> scaled = d;
  return cv.wait_for(lock, std::chrono::duration_cast<std::chrono::microseconds>(scaled / factor_),
                     done);
}

}  // namespace quell::system
