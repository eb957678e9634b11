#include "quell/adapters/http_server/ops_http_server.h"

#include <algorithm>
#include <charconv>
#include <exception>
#include <regex>
#include <utility>

#include "quell/adapters/http_server/allowed_hosts.h"
#include "quell/adapters/http_server/http_front.h"
#include "quell/adapters/http_server/session_store.h"
#include "quell/core/text/request_target.h"

namespace quell::http_server {

struct OpsHttpServer::CompiledRoute {
  const app::OpsRoute* route;
  std::regex pattern;
};

namespace {

// The value of the header `lower_name`, or nullptr.
const std::string* FindHeader(const RequestHead& head, std::string_view lower_name) {
  for (const auto& [name, value] : head.headers) {
    if (name == lower_name) return &value;
  }
  return nullptr;
}

// The token after "Bearer " (scheme case-insensitive), or empty.
std::string_view BearerToken(const RequestHead& head) {
  const std::string* header = FindHeader(head, "authorization");
  if (header == nullptr) return {};
  std::string_view value{*header};
  constexpr std::string_view kScheme = "bearer ";
  if (value.size() <= kScheme.size()) return {};
  for (size_t i = 0; i < kScheme.size(); ++i) {
    const char c = value[i];
    if ((c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c) != kScheme[i]) return {};
  }
  value.remove_prefix(kScheme.size());
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  return value;
}

Admission Refuse(HttpAnswer answer) { return Admission{.refusal = std::move(answer)}; }

HttpAnswer Serve(const app::OpsRoute& route, const app::OpsRequest& request) {
  app::OpsResponse response;
  try {
    response = route.handler(request);
  } catch (const std::exception&) {
    return ErrorAnswer(500, "internal", "the handler failed");
  }
  return HttpAnswer{.status = response.status,
                    .content_type = std::move(response.content_type),
                    .body = std::move(response.body),
                    .headers = std::move(response.headers)};
}

}  // namespace

bool ConstantTimeEquals(std::string_view expected, std::string_view given) {
  unsigned diff = expected.size() == given.size() ? 0U : 1U;
  for (size_t i = 0; i < expected.size(); ++i) {
    const char g = i < given.size() ? given[i] : '\0';
    diff |= static_cast<unsigned>(static_cast<unsigned char>(expected[i]) ^
                                  static_cast<unsigned char>(g));
  }
  return diff == 0;
}

core::Result<std::pair<std::string, int>> ParseListenAddress(const std::string& listen) {
  const auto bad = [&](const std::string& why) {
    return core::MakeError(core::ErrorCode::kInvalidArgument,
                           "listen address \"" + listen + "\": " + why);
  };
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0) return bad("expected host:port");
  std::string host = listen.substr(0, colon);
  if (host.front() == '[') {
    if (host.size() < 3 || host.back() != ']') return bad("expected [address]:port");
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string::npos) {
    return bad("an IPv6 address must be in brackets");
  }
  const std::string_view port_text = std::string_view{listen}.substr(colon + 1);
  int port = -1;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc() || end != port_text.data() + port_text.size() ||
      port < 0 || port > 65535) {
    return bad("port must be a number from 0 to 65535");
  }
  return std::pair(std::move(host), port);
}

OpsHttpServer::OpsHttpServer(OpsServerOptions options, std::vector<app::OpsRoute> routes)
    : options_(std::move(options)), routes_(std::move(routes)) {}

OpsHttpServer::~OpsHttpServer() { Stop(); }

Admission OpsHttpServer::Admit(RequestHead head) const {
  // Handlers print, store and answer in JSON what they are given: bytes that are not UTF-8
  // are refused here, for every route alike.
  for (const auto& [name, value] : head.headers) {
    if (!core::IsUtf8(value)) {
      return Refuse(ErrorAnswer(400, "bad_request", "the " + name + " header is not UTF-8"));
    }
  }
  auto target = core::ParseRequestTarget(head.target);
  if (!target) return Refuse(ErrorAnswer(400, "bad_request", target.error().message));

  const CompiledRoute* found = nullptr;
  std::smatch match;
  std::string allow;
  for (const CompiledRoute& c : compiled_) {
    if (!std::regex_match(target->path, match, c.pattern)) continue;
    if (c.route->method == head.method) {
      found = &c;
      break;
    }
    if (!allow.empty()) allow.append(", ");
    allow.append(c.route->method);
  }
  if (found == nullptr) {
    if (allow.empty()) return Refuse(ErrorAnswer(404, "not_found", "no route " + target->path));
    HttpAnswer refusal =
        ErrorAnswer(405, "method_not_allowed", head.method + " is not allowed here");
    refusal.headers.emplace_back("Allow", allow);
    return Refuse(std::move(refusal));
  }

  const app::OpsRoute& route = *found->route;
  const bool has_token =
      !options_.token.empty() && ConstantTimeEquals(options_.token, BearerToken(head));
  const std::string* cookie = FindHeader(head, "cookie");
  const bool has_session = !has_token && options_.sessions != nullptr && cookie != nullptr &&
                           options_.sessions->Valid(SessionIdOf(*cookie));
  const bool authenticated = has_token || has_session;
  if ((route.write || (!route.is_public && !options_.open_reads)) && !authenticated) {
    if (options_.token.empty()) {
      return Refuse(ErrorAnswer(403, "forbidden", "no API token is configured"));
    }
    HttpAnswer refusal = ErrorAnswer(401, "unauthorized", "a valid bearer token is required");
    refusal.headers.emplace_back("WWW-Authenticate", "Bearer");
    return Refuse(std::move(refusal));
  }
  // A browser sends the cookie with whatever a page makes it request; only this origin's
  // script can add a header of its own without a CORS preflight, which is never answered.
  if (has_session && !route.is_public && head.method != "GET" && head.method != "HEAD" &&
      FindHeader(head, kCsrfHeader) == nullptr) {
    return Refuse(ErrorAnswer(403, "forbidden",
                              "a request that changes something with the session cookie must "
                              "carry the X-Quell-Csrf header (the page sends it)"));
  }
  const auto probe = head.method == "GET" ? std::find(options_.probe_paths.begin(),
                                                      options_.probe_paths.end(), target->path)
                                          : options_.probe_paths.end();
  const bool is_probe = probe != options_.probe_paths.end();
  if (options_.open_reads && !authenticated && !is_probe) {
    const std::string* host = FindHeader(head, "host");
    if (host != nullptr && !IsAllowedHost(*host, allowed_hosts_)) {
      return Refuse(ErrorAnswer(421, "misdirected_request",
                                "this server does not answer for the host \"" + *host +
                                    "\" without a token (http.allowed_hosts)"));
    }
  }

  app::OpsRequest request;
  request.method = std::move(head.method);
  request.path = target->path;
  for (size_t i = 1; i < match.size(); ++i) request.captures.push_back(match[i].str());
  for (auto& [name, value] : target->query)
    request.query.emplace(std::move(name), std::move(value));
  for (auto& [name, value] : head.headers)
    request.headers.emplace(std::move(name), std::move(value));
  request.actor = options_.token_name.empty() ? "http" : options_.token_name;
  request.auth = has_token ? "token" : has_session ? "session" : "";

  const size_t probes = options_.probe_paths.size();
  Admission admission;
  admission.lane = is_probe        ? static_cast<size_t>(probe - options_.probe_paths.begin())
                   : authenticated ? probes
                                   : probes + 1;
  admission.unauthenticated = !is_probe && !authenticated;
  admission.max_body = route.max_body;
  admission.handle = [&route, request = std::move(request)](std::string body) mutable {
    request.body = std::move(body);
    return Serve(route, request);
  };
  return admission;
}

core::Result<int> OpsHttpServer::Start() {
  auto address = ParseListenAddress(options_.listen);
  if (!address) return address.error();
  compiled_.clear();
  for (const app::OpsRoute& route : routes_) {
    try {
      compiled_.push_back(CompiledRoute{&route, std::regex(route.pattern)});
    } catch (const std::regex_error& e) {
      return core::MakeError(core::ErrorCode::kInvalidArgument,
                             "route pattern \"" + route.pattern + "\": " + e.what());
    }
  }
  const auto& [host, port] = *address;
  allowed_hosts_.clear();
  for (const std::string& name : options_.allowed_hosts) allowed_hosts_.push_back(HostName(name));
  if (!host.empty()) allowed_hosts_.push_back(HostName(host));

  FrontOptions front;
  front.header_timeout = options_.header_timeout;
  front.idle_timeout = options_.idle_timeout;
  front.body_timeout = options_.body_timeout;
  front.min_body_rate = options_.min_body_rate;
  front.write_timeout = options_.write_timeout;
  front.max_connections = static_cast<size_t>(std::max(options_.max_connections, 1));
  front.max_unauthenticated = static_cast<size_t>(std::max(options_.max_unauthenticated, 1));
  // Lanes: one per probe path, then the token holders', then everyone else's.
  front.lanes.assign(options_.probe_paths.size(),
                     static_cast<size_t>(std::max(options_.probe_threads, 1)));
  front.lanes.push_back(static_cast<size_t>(std::max(options_.threads, 1)));
  front.lanes.push_back(static_cast<size_t>(std::max(options_.unauthenticated_threads, 1)));
  front_ = std::make_unique<HttpFront>(front,
                                       [this](RequestHead head) { return Admit(std::move(head)); });
  auto bound = front_->Listen(host, port, options_.listen);
  if (!bound) return bound.error();
  port_ = *bound;
  front_->Start();
  running_ = true;
  return port_;
}

void OpsHttpServer::Stop() {
  if (!running_) return;
  running_ = false;
  front_->Stop();
}

}  // namespace quell::http_server
