#pragma once

#include <memory>
#include <mutex>
#include <utility>

namespace quell::app {

// The latest value of something a reload replaces (the running config's maintenance windows,
// its poll groups), read by server threads while the poll thread sets it. A reader keeps the
// snapshot it got for as long as it needs; Set never waits for readers. Thread-safe.
template <typename T>
class Latest {
 public:
  Latest() : value_(std::make_shared<const T>()) {}

  void Set(T value) {
    auto next = std::make_shared<const T>(std::move(value));
    const std::lock_guard<std::mutex> lock(mu_);
    value_ = std::move(next);
  }

  std::shared_ptr<const T> Get() const {
    const std::lock_guard<std::mutex> lock(mu_);
    return value_;
  }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const T> value_;  // guarded by mu_
};

}  // namespace quell::app
