#include "quell/adapters/curl/easy_handle_pool.h"

#include <utility>

namespace quell::curl {

EasyHandle EasyHandlePool::Acquire() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!idle_.empty()) {
      EasyHandle handle = std::move(idle_.back());
      idle_.pop_back();
      return handle;
    }
  }
  return EasyHandle(curl_easy_init());
}

void EasyHandlePool::Release(EasyHandle handle) {
  curl_easy_reset(handle.get());
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (idle_.size() < max_idle_) {
      idle_.push_back(std::move(handle));
      return;
    }
  }
  // Over max_idle: `handle` is cleaned up on return, outside the lock, closing its connections.
}

}  // namespace quell::curl
