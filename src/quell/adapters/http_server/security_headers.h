#pragma once

#include <string_view>

#include "quell/adapters/http_server/http_front.h"

namespace quell::http_server {

// The Content-Security-Policy of an HTML answer whose handler sets none (the ack pages): no
// script, no style or image but this server's, a form posts only back here, nothing frames it.
inline constexpr std::string_view kDefaultHtmlCsp =
    "default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'";

// Adds to `answer` the security headers it lacks (a handler's own, such as the page's CSP,
// are kept): `X-Content-Type-Options: nosniff` on every answer; on an HTML one also the CSP
// above, `X-Frame-Options: DENY`, `Referrer-Policy: no-referrer` (an ack link carries its
// token in the URL) and `Cache-Control: no-store`.
void AddSecurityHeaders(HttpAnswer& answer);

}  // namespace quell::http_server
