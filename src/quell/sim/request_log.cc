#include "quell/sim/request_log.h"

#include <openssl/evp.h>

#include <cstdio>

namespace quell::sim {

void RequestLog::Record(LoggedRequest r) {
  r.seq = next_seq_++;
  counts_[r.route] += 1;
  if (!r.idempotency_key.empty() && idempotency_seen_.insert(r.idempotency_key).second) {
    idempotency_keys_.push_back(r.idempotency_key);
  }
  if (!r.authorization.empty()) authorizations_[r.authorization] += 1;
  recent_.push_back(std::move(r));
  while (recent_.size() > kRecent) recent_.pop_front();
}

nlohmann::json RequestLog::ToJson() const {
  nlohmann::json recent = nlohmann::json::array();
  for (const auto& r : recent_) {
    recent.push_back({{"seq", r.seq},
                      {"method", r.method},
                      {"path", r.path},
                      {"route", r.route},
                      {"status", r.status},
                      {"authorization", r.authorization},
                      {"idempotency_key", r.idempotency_key},
                      {"note", r.note}});
  }
  return {{"total", next_seq_ - 1},
          {"counts", counts_},
          {"idempotency_keys", idempotency_keys_},
          {"authorizations", authorizations_},
          {"recent", std::move(recent)}};
}

std::string FingerprintSecret(std::string_view secret) {
  if (secret.empty()) return "";
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(secret.data(), secret.size(), digest, &size, EVP_sha256(), nullptr) != 1) {
    return "sha256:unavailable";
  }
  std::string out = "sha256:";
  char hex[3];
  for (unsigned int i = 0; i < 8 && i < size; ++i) {
    std::snprintf(hex, sizeof hex, "%02x", digest[i]);
    out += hex;
  }
  return out;
}

}  // namespace quell::sim
