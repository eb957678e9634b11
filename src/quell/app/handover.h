#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>

namespace quell::app {

// Hands a value built on one thread to the thread that will use it, and lets the builder wait
// until it has been taken: how a reload switches the dispatcher before the poller, so the
// poller never writes rows for a channel the running dispatcher does not have. Thread-safe.
template <typename T>
class Handover {
 public:
  // Producer: replaces any offer not yet taken.
  void Offer(std::unique_ptr<T> next) {
    {
      const std::lock_guard lock(mu_);
      offered_ = std::move(next);
    }
    cv_.notify_all();
  }

  // Consumer: the offer, or null when there is none.
  std::unique_ptr<T> Take() {
    std::unique_ptr<T> taken;
    {
      const std::lock_guard lock(mu_);
      taken = std::move(offered_);
    }
    if (taken) cv_.notify_all();
    return taken;
  }

  // Consumer, when it stops: later offers are dropped and a waiting producer returns.
  void Close() {
    {
      const std::lock_guard lock(mu_);
      closed_ = true;
      offered_.reset();
    }
    cv_.notify_all();
  }

  // Producer: true once the offer has been taken; false when the consumer closed first.
  bool AwaitTaken() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return !offered_ || closed_; });
    return !closed_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::unique_ptr<T> offered_;
  bool closed_ = false;
};

}  // namespace quell::app
