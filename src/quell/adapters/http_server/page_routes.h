#pragma once

#include <string_view>
#include <vector>

#include "quell/app/ops_request.h"

namespace quell::http_server {

// The Content-Security-Policy of every page response: the page's own script, style and images
// only, no inline code, nothing framed, no form posted anywhere.
inline constexpr std::string_view kPageCsp =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

// The operator page (docs/page.md), from the files built into the binary (web::PageAssets):
//   GET /, /incidents/{key}, /outbox, /silences, /maintenance, /sources   the HTML shell
//   GET /assets/<name>   every other built-in file: app.js and its modules, app.css, favicon.svg
// Public routes: they carry no data (the script reads the JSON API with the token). Each answer
// has the CSP above, nosniff, no-referrer, `Cache-Control: no-cache` and the file's ETag; a
// request whose If-None-Match names that tag (or `*`) is a 304 without a body. Safe on several
// server threads (the files are immutable).
std::vector<app::OpsRoute> PageRoutes();

}  // namespace quell::http_server
