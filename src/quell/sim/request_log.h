#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace quell::sim {

struct LoggedRequest {
  uint64_t seq = 0;
  std::string method;
  std::string path;
  std::string route;  // "GET /v1/errors/group_detail/{error_group_id}"
  int status = 0;
  std::string authorization;  // a fingerprint, never the header itself
  std::string idempotency_key;
  std::string note;  // which fault answered, "replay", ...
};

// What tests assert on: per-route counts, the Idempotency-Keys seen, and fingerprints of the
// Authorization headers seen. Keys are secrets, so only a SHA-256 prefix is kept.
// Not thread-safe: SimState's mutex guards it.
class RequestLog {
 public:
  static constexpr size_t kRecent = 2000;

  void Record(LoggedRequest r);
  nlohmann::json ToJson() const;
  void Clear() { *this = RequestLog{}; }

 private:
  uint64_t next_seq_ = 1;
  std::map<std::string, uint64_t> counts_;
  std::vector<std::string> idempotency_keys_;  // first-seen order
  std::set<std::string> idempotency_seen_;
  std::map<std::string, uint64_t> authorizations_;
  std::deque<LoggedRequest> recent_;
};

// "sha256:" + the first 16 hex digits of SHA-256(secret); "" for an empty secret.
std::string FingerprintSecret(std::string_view secret);

}  // namespace quell::sim
