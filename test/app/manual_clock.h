#pragma once

#include <condition_variable>
#include <list>
#include <mutex>

#include "quell/core/ports/clock.h"

namespace quell::testing {

// A fake clock for code that waits on threads of its own (the daemon's runtime): WaitFor blocks
// until `done()` or until the test has advanced the clock past its deadline, so a thread waits
// exactly as long as the test says, and no wall time passes. SleepFor advances the clock
// (nobody else would). StepWall moves the wall alone, as an NTP step does.
class ManualClock : public core::Clock {
 public:
  explicit ManualClock(core::WallTime start) : now_(start) {}

  core::WallTime Now() override {
    const std::lock_guard<std::mutex> lock(mutex_);
    return now_;
  }
  core::MonoTime Monotonic() override {
    const std::lock_guard<std::mutex> lock(mutex_);
    return mono_;
  }
  void SleepFor(core::Duration d) override { Advance(d); }
  void StepWall(core::Duration d) {
    const std::lock_guard<std::mutex> lock(mutex_);
    now_ += d;
  }

  bool WaitFor(std::unique_lock<std::mutex>& lock, std::condition_variable& cv, core::Duration d,
               const std::function<bool()>& done) override {
    std::list<Waiter>::iterator self;
    core::MonoTime deadline;
    {
      const std::lock_guard<std::mutex> guard(mutex_);
      deadline = mono_ + d;
      self = waiters_.insert(waiters_.end(), Waiter{lock.mutex(), &cv});
    }
    parked_.notify_all();
    // The caller's mutex is held from each look at the time until cv.wait releases it, and
    // Advance takes that mutex to notify: no advance falls between the two.
    while (!done() && Monotonic() < deadline) cv.wait(lock);
    {
      const std::lock_guard<std::mutex> guard(mutex_);
      waiters_.erase(self);
    }
    return done();
  }

  // Blocks until `n` threads wait in WaitFor. A test advances the clock only once the threads it
  // means to wake are parked: a thread still between reading the time and starting its wait
  // would count its wait from after the advance and sleep through it.
  void AwaitWaiters(size_t n) {
    std::unique_lock<std::mutex> lock(mutex_);
    parked_.wait(lock, [&] { return waiters_.size() >= n; });
  }

  // Moves both readings forward by `d` and wakes every waiter to look at the time again.
  void Advance(core::Duration d) {
    std::list<Waiter> waiters;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      now_ += d;
      mono_ += d;
      waiters = waiters_;
    }
    for (const Waiter& w : waiters) {
      const std::lock_guard<std::mutex> lock(*w.mutex);
      w.cv->notify_all();
    }
  }

 private:
  struct Waiter {
    std::mutex* mutex;
    std::condition_variable* cv;
  };
  std::mutex mutex_;
  core::WallTime now_;
  core::MonoTime mono_{std::chrono::hours(1)};
  std::list<Waiter> waiters_;       // guarded by mutex_
  std::condition_variable parked_;  // a waiter joined waiters_
};

}  // namespace quell::testing
