#pragma once

#include <vector>

#include "quell/adapters/http_server/session_store.h"
#include "quell/app/ops_request.h"
#include "quell/core/ports/event_log.h"

namespace quell::http_server {

// The operator page's login (docs/http.md "Sessions"):
//   POST   /v1/session   with the bearer token (never the cookie): a new session, its id in
//                        the answer's Set-Cookie (SessionSetCookie; Secure when `secure`);
//                        200 {"session": {"expires_in": seconds}}
//   DELETE /v1/session   public: ends the session the cookie names, if any, and clears the
//                        cookie; 200 {"session": null}
//   GET    /v1/session   public: how this request is authenticated, {"auth": "token" |
//                        "session" | null}, so the page knows whether to offer "Log out"
// Each login and logout is an `http.session` log line (never the id). `sessions` and `log` must
// outlive the routes.
std::vector<app::OpsRoute> SessionRoutes(SessionStore& sessions, bool secure, core::EventLog& log);

}  // namespace quell::http_server
