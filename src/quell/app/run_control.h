#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "quell/core/ports/clock.h"
#include "quell/core/text/time.h"

namespace quell::app {

// The daemon's stop and reload requests, and the waits they cut short: a signal thread
// requests, the poll and dispatch loops wait on the clock between rounds and look at the
// flags only at round boundaries, so a cycle or a batch in hand always finishes. Thread-safe.
class RunControl {
 public:
  void RequestStop();
  void RequestReload();
  // Wakes waiters without a request (new work for the dispatcher, say).
  void Wake();

  bool stop_requested() const;
  // True once per RequestReload (several before a look count as one).
  bool TakeReload();

  // Waits up to `d` of `clock`'s time; returns early on a stop, a Wake() and, when
  // `on_reload`, a pending reload.
  void WaitFor(core::Clock& clock, core::Duration d, bool on_reload);

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool reload_ = false;
  uint64_t wakes_ = 0;
};

}  // namespace quell::app
