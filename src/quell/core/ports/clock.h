#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>

#include "quell/core/text/time.h"

namespace quell::core {

// The tag of MonoTime: a reading counted from an arbitrary origin fixed when the process (or
// the fake) starts. A MonoTime means nothing outside the process, so it is never stored or shown.
struct MonotonicTag {};
// Time that only moves forward at the wall's rate, whatever the wall clock does (an NTP step, a
// hand-set date): what intervals inside one process are measured on (cadences, deadlines,
// backoffs, ages).
using MonoTime = std::chrono::time_point<MonotonicTag, Duration>;

// Time for the parts outside the pure core. The core never reads a clock; a loop or a retry
// reads Now() once per step and passes the value down. Now() is for what is stored or shown
// (incident times, outbox rows, leases other processes compare); Monotonic() for every
// interval measured in this process, so a step of the wall clock moves no wait or deadline. Only
// adapters/system really sleeps; tests pass a fake that advances on SleepFor, so no test waits on
// the wall.
class Clock {
 public:
  virtual ~Clock() = default;
  // The current wall time. Thread-safe.
  virtual WallTime Now() = 0;
  // The current monotonic reading: never goes back, unmoved by wall-clock steps. Thread-safe.
  virtual MonoTime Monotonic() = 0;
  // Blocks the calling thread for `d` (a fake advances Now() and Monotonic() instead).
  // Thread-safe.
  virtual void SleepFor(Duration d) = 0;
  // Waits up to `d` of this clock's time for `cv` (whose mutex `lock` holds) to be notified
  // with `done()` true, as std::condition_variable::wait_for does; returns done(). The default
  // sleeps `d` unlocked and then checks, which suits a fake clock (SleepFor advances it); a
  // clock on the wall overrides it so that a notify cuts the wait short. Thread-safe.
  virtual bool WaitFor(std::unique_lock<std::mutex>& lock, std::condition_variable& cv, Duration d,
                       const std::function<bool()>& done) {
    (void)cv;
    if (done()) return true;
    lock.unlock();
    SleepFor(d);
    lock.lock();
    return done();
  }
};

}  // namespace quell::core
