#pragma once

#include <curl/curl.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

namespace quell::curl {

struct EasyHandleDeleter {
  void operator()(CURL* handle) const { curl_easy_cleanup(handle); }
};
using EasyHandle = std::unique_ptr<CURL, EasyHandleDeleter>;

// Idle easy handles, for HTTP keep-alive without a multi handle: a handle keeps its open
// connections, TLS sessions and DNS cache across curl_easy_reset, so the next request made on
// it reuses the connection the last one left open. A handle serves one thread at a time;
// the pool is what makes the client thread-safe. Thread-safe.
class EasyHandlePool {
 public:
  explicit EasyHandlePool(size_t max_idle) : max_idle_(max_idle) {}

  // The most recently released handle (its connection is the likeliest to be still open), or
  // a new one. Null only when libcurl cannot allocate.
  EasyHandle Acquire();
  // Resets `handle` (no idle handle keeps pointers into a finished request) and keeps it for
  // reuse; beyond max_idle it is closed instead, with its connections.
  void Release(EasyHandle handle);

 private:
  const size_t max_idle_;
  std::mutex mutex_;
  std::vector<EasyHandle> idle_;  // guarded by mutex_
};

// Gives a handle back to its pool when the request is done, however it ended.
class PooledHandle {
 public:
  explicit PooledHandle(EasyHandlePool& pool) : pool_(pool), handle_(pool.Acquire()) {}
  ~PooledHandle() {
    if (handle_) pool_.Release(std::move(handle_));
  }
  PooledHandle(const PooledHandle&) = delete;
  PooledHandle& operator=(const PooledHandle&) = delete;

  CURL* get() const { return handle_.get(); }

 private:
  EasyHandlePool& pool_;
  EasyHandle handle_;
};

}  // namespace quell::curl
