#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "quell/core/ports/clock.h"

namespace quell::http_server {

// The operator page's logins (docs/page.md, docs/http.md "Sessions"): POST /v1/session trades
// the bearer token for a random session id that the browser keeps in an HttpOnly cookie, so the
// page logs in once and a link from a message opens it directly. Sessions live in this
// process's memory: a restart logs everyone out, and each instance behind one name has its own.
class SessionStore {
 public:
  // Sessions last `ttl` from their login (monotonic time, so a clock step moves none); past
  // `max_sessions` the oldest is dropped to make room. `clock` must outlive the store.
  SessionStore(core::Clock& clock, core::Duration ttl, size_t max_sessions = 1024);

  // A new session's id: 32 bytes from OpenSSL's RAND_bytes, in hex.
  std::string Create();
  // Whether `id` names a session that has not expired. Thread-safe; the map is keyed by the
  // id's SHA-256, so how long a lookup takes says nothing about the ids held.
  bool Valid(std::string_view id);
  // Ends `id`'s session, if it is one (logout).
  void Remove(std::string_view id);
  core::Duration ttl() const { return ttl_; }

 private:
  core::Clock& clock_;
  core::Duration ttl_;
  size_t max_sessions_;
  std::mutex mutex_;
  std::map<std::string, core::MonoTime> expiry_by_digest_;
};

// The session cookie's name; the page never reads it (HttpOnly).
inline constexpr std::string_view kSessionCookie = "quell_session";
// The header a state-changing request authenticated by the cookie must carry (any value): a
// page on another origin cannot send it without a CORS preflight, which quell never allows.
inline constexpr std::string_view kCsrfHeader = "x-quell-csrf";

// The value of the session cookie in a Cookie header ("a=1; quell_session=..."), or empty.
std::string SessionIdOf(std::string_view cookie_header);
// The Set-Cookie value logging in `id` for `max_age`: Path=/, HttpOnly, SameSite=Strict, and
// Secure when the page is served over https (`secure`).
std::string SessionSetCookie(std::string_view id, core::Duration max_age, bool secure);
// The Set-Cookie value that makes the browser forget the cookie.
std::string SessionClearCookie(bool secure);

}  // namespace quell::http_server
