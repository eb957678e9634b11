#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

namespace quell::app {

// Runs work(i) for every i in [0, n) on at most `concurrency` threads (the caller's included)
// and returns when all are done. `work` must be thread-safe; it is how a poll bounds the
// concurrent detail requests it makes.
inline void ForEachBounded(size_t n, uint32_t concurrency,
                           const std::function<void(size_t)>& work) {
  std::atomic<size_t> next{0};
  const auto drain = [&] {
    for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) work(i);
  };
  const size_t helpers = std::min<size_t>(n, std::max<uint32_t>(concurrency, 1)) - (n > 0 ? 1 : 0);
  std::vector<std::jthread> threads;
  threads.reserve(helpers);
  for (size_t t = 0; t < helpers; ++t) threads.emplace_back(drain);
  drain();
}

}  // namespace quell::app
