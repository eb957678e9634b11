#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace quell::app {

// One request to quell's own HTTP surface (health, metrics, operator endpoints), free of any
// server library so the handlers are plain functions the tests call directly.
struct OpsRequest {
  std::string method;                          // "GET", "POST", "DELETE"
  std::string path;                            // "/v1/incidents/acme%3Ax/ack" decoded
  std::vector<std::string> captures;           // the route pattern's groups, in order
  std::map<std::string, std::string> query;    // decoded query parameters
  std::string body;                            // the raw body (JSON for writes)
  std::map<std::string, std::string> headers;  // lower-case names (a provider's signature)
  std::string actor;                           // who, for the audit fields ("http")
  // How the request proved itself: "token" (the bearer token), "session" (the page's session
  // cookie, docs/http.md "Sessions"), or "" (neither: a public route, or a read with open_reads).
  std::string auth;
};

struct OpsResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  // Extra response headers (name, value), e.g. the page's Content-Security-Policy and caching.
  std::vector<std::pair<std::string, std::string>> headers{};  // {}: aggregates may omit it
};

using OpsHandler = std::function<OpsResponse(const OpsRequest&)>;

// A route of the ops server. `pattern` is an ECMAScript regex over the whole path; its groups
// become OpsRequest::captures. A write route always needs the bearer token; a read route needs
// it unless the config opens reads; a public route (the liveness and readiness probes, which
// say nothing about incidents) never does, so a probe needs no secret. A body larger than
// `max_body` is refused (413) before any of it is read.
struct OpsRoute {
  std::string method;
  std::string pattern;
  bool write = false;
  OpsHandler handler;
  bool is_public = false;
  uint64_t max_body = uint64_t{1} << 20;
};

}  // namespace quell::app
