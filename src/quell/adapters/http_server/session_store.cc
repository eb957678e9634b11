#include "quell/adapters/http_server/session_store.h"

#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <stdexcept>

#include "quell/core/text/hex.h"
#include "quell/core/text/sha256.h"

namespace quell::http_server {
namespace {

std::string Digest(std::string_view id) { return core::HexOf(core::Sha256(id)); }

}  // namespace

SessionStore::SessionStore(core::Clock& clock, core::Duration ttl, size_t max_sessions)
    : clock_(clock), ttl_(ttl), max_sessions_(std::max<size_t>(max_sessions, 1)) {}

std::string SessionStore::Create() {
  std::array<uint8_t, 32> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
    // The handler's exception becomes a 500; a guessable id is never handed out.
    throw std::runtime_error("no random bytes for a session id");
  }
  std::string id = core::HexOf(bytes);
  const core::MonoTime now = clock_.Monotonic();
  const std::lock_guard<std::mutex> guard(mutex_);
  std::erase_if(expiry_by_digest_, [&](const auto& entry) { return entry.second <= now; });
  if (expiry_by_digest_.size() >= max_sessions_) {
    // The oldest login ends first: it expires soonest.
    const auto oldest =
        std::min_element(expiry_by_digest_.begin(), expiry_by_digest_.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; });
    expiry_by_digest_.erase(oldest);
  }
  expiry_by_digest_[Digest(id)] = now + ttl_;
  return id;
}

bool SessionStore::Valid(std::string_view id) {
  if (id.empty()) return false;
  const std::string digest = Digest(id);
  const core::MonoTime now = clock_.Monotonic();
  const std::lock_guard<std::mutex> guard(mutex_);
  const auto it = expiry_by_digest_.find(digest);
  if (it == expiry_by_digest_.end()) return false;
  if (it->second <= now) {
    expiry_by_digest_.erase(it);
    return false;
  }
  return true;
}

void SessionStore::Remove(std::string_view id) {
  if (id.empty()) return;
  const std::string digest = Digest(id);
  const std::lock_guard<std::mutex> guard(mutex_);
  expiry_by_digest_.erase(digest);
}

std::string SessionIdOf(std::string_view cookie_header) {
  while (!cookie_header.empty()) {
    const size_t semi = cookie_header.find(';');
    std::string_view pair = cookie_header.substr(0, semi);
    cookie_header = semi == std::string_view::npos ? "" : cookie_header.substr(semi + 1);
    while (!pair.empty() && pair.front() == ' ') pair.remove_prefix(1);
    const size_t eq = pair.find('=');
    if (eq == std::string_view::npos || pair.substr(0, eq) != kSessionCookie) continue;
    std::string_view value = pair.substr(eq + 1);
    while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
    return std::string(value);
  }
  return {};
}

std::string SessionSetCookie(std::string_view id, core::Duration max_age, bool secure) {
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(max_age).count();
  return std::string(kSessionCookie) + "=" + std::string(id) +
         "; Path=/; Max-Age=" + std::to_string(seconds) + "; HttpOnly; SameSite=Strict" +
         (secure ? "; Secure" : "");
}

std::string SessionClearCookie(bool secure) { return SessionSetCookie("", {}, secure); }

}  // namespace quell::http_server
