#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "quell/core/text/time.h"

namespace quell::sim {

// Remembers the first successful answer per (route, Idempotency-Key) so a retry within the 24 h
// dedup window [SEC 69623257780] gets the original body back and changes nothing twice.
// Not thread-safe: SimState's mutex guards it.
class IdempotencyCache {
 public:
  struct Entry {
    int status = 200;
    std::string body;
    core::WallTime stored_at;
  };
  static constexpr core::Duration kWindow = std::chrono::hours(24);

  // The stored answer, or nullptr when there is none or it is older than the window.
  const Entry* Find(const std::string& scope, const std::string& key, core::WallTime now) const {
    auto it = entries_.find({scope, key});
    if (it == entries_.end() || now - it->second.stored_at >= kWindow) return nullptr;
    return &it->second;
  }
  void Put(const std::string& scope, const std::string& key, Entry e) {
    entries_[{scope, key}] = std::move(e);
  }
  void Clear() { entries_.clear(); }

 private:
  std::map<std::pair<std::string, std::string>, Entry> entries_;
};

}  // namespace quell::sim
