#pragma once

#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "quell/app/run_listener.h"
#include "quell/core/result.h"

namespace quell::app {

// Whether the store took the daemon's writes, for /readyz: a store that still answers a read
// but refuses every write (a full disk, an I/O error, a read-only file, a lost PostgreSQL) must
// not look ready. Each side that writes ("poll", "dispatch") is judged by its latest attempt,
// so readiness comes back by itself with the first write that succeeds again, and one side's
// success does not hide the other's failure. Thread-safe.
class StoreHealth : public RunListener {
 public:
  void OnCycleStart(const std::string&, core::WallTime) override {}
  void OnCycleEnd(const std::string&, const CycleReport&, core::WallTime) override {}
  void OnDispatch(const DispatchReport&, core::WallTime) override {}
  void OnStoreWrites(std::string_view side, const core::Status& status) override;

  // Ok when every side's latest write went through, else the first failing side's error
  // ("poll: <the store's message>").
  core::Status Status() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::string, std::less<>> failing_;  // side -> its error; guarded by mu_
};

// Paces a loop whose store stopped answering (the dispatcher's): between failed rounds it
// waits 100 ms doubling up to 5 s instead of its idle interval, and it tells the caller when
// the outage starts and when it ends, so the log says so once each instead of every round.
// Pure: the caller reads the clock and waits. Not thread-safe.
class StoreOutage {
 public:
  enum class Change { kNone, kStarted, kEnded };
  static constexpr core::Duration kFirstWait = std::chrono::milliseconds(100);
  static constexpr core::Duration kMaxWait = std::chrono::seconds(5);

  // After each round: the store's error, or empty when the store answered.
  Change Observe(const std::string& store_error);
  // How long to wait before the next round: `usual` while the store answers, else the backoff
  // (never shorter than `usual`).
  core::Duration Wait(core::Duration usual) const;
  bool down() const { return failures_ > 0; }
  // Failed rounds in the outage that just ended or is going on.
  uint64_t failures() const { return failures_ > 0 ? failures_ : last_failures_; }

 private:
  uint64_t failures_ = 0;
  uint64_t last_failures_ = 0;
};

}  // namespace quell::app
