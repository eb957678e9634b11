#include "quell/adapters/http_server/ops_http_server.h"

#include <httplib.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <exception>
#include <regex>
#include <utility>

#include "quell/adapters/http_server/connection_gate.h"
#include "quell/adapters/http_server/held_stream.h"
#include "quell/adapters/http_server/worker_lane.h"
#include "quell/core/text/json_escape.h"

namespace quell::http_server {

struct OpsHttpServer::CompiledRoute {
  const app::OpsRoute* route;
  std::regex pattern;
};

// cpp-httplib's request processing (parsing, routing, bodies, responses) without its accept
// loop, which gives each connection a worker for as long as it stays open.
class OpsHttpServer::RouteServer : public httplib::Server {
 public:
  // One request from `stream`; false when it could not be read or answered.
  bool ProcessOne(httplib::Stream& stream, bool& connection_closed) {
    return process_request(stream, /*close_connection=*/false, connection_closed, nullptr);
  }
};

namespace {

// Set on a worker when httplib refused a request by itself (malformed, too large): what is
// left on the connection cannot be trusted to start a request, so it is closed.
thread_local bool close_after_response = false;

constexpr auto kWriteTimeout = std::chrono::seconds(5);

// The path of a GET request line ("GET /healthz?x HTTP/1.1" -> "/healthz"), or empty.
std::string_view GetPath(std::string_view head) {
  constexpr std::string_view kGet = "GET ";
  if (!head.starts_with(kGet)) return {};
  head.remove_prefix(kGet.size());
  return head.substr(0, head.find_first_of(" ?\r\n"));
}

void SendError(httplib::Response& res, int status, const char* code, const std::string& message) {
  std::string body = R"({"error":{"code":")";
  body.append(code).append(R"(","message":)");
  core::AppendJsonString(body, message);
  body.append("}}");
  res.status = status;
  res.set_content(body, "application/json");
}

// The token after "Bearer " (scheme case-insensitive), or empty.
std::string_view BearerToken(const httplib::Request& req) {
  auto it = req.headers.find("Authorization");
  if (it == req.headers.end()) return {};
  std::string_view value{it->second};
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

// What a status httplib set by itself means to the client.
std::string ErrorMessageFor(int status) {
  switch (status) {
    case 400:
      return "the request could not be read (malformed request line, headers or body framing)";
    case 413:
      return "the body is larger than 1 MiB";
    default:
      return "HTTP " + std::to_string(status);
  }
}

// The error code of a status httplib set by itself.
const char* ErrorCodeFor(int status) {
  switch (status) {
    case 400:
      return "bad_request";
    case 404:
      return "not_found";
    case 405:
      return "method_not_allowed";
    case 413:
      return "payload_too_large";
    default:
      return status >= 500 ? "internal" : "bad_request";
  }
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
    : options_(std::move(options)),
      routes_(std::move(routes)),
      http_(std::make_unique<RouteServer>()) {}

OpsHttpServer::~OpsHttpServer() { Stop(); }

const OpsHttpServer::CompiledRoute* OpsHttpServer::Admit(const httplib::Request& req,
                                                         httplib::Response& res) const {
  const CompiledRoute* found = nullptr;
  std::string allow;
  for (const CompiledRoute& c : compiled_) {
    if (!std::regex_match(req.path, c.pattern)) continue;
    if (c.route->method == req.method) {
      found = &c;
      break;
    }
    if (!allow.empty()) allow.append(", ");
    allow.append(c.route->method);
  }
  if (found == nullptr) {
    if (allow.empty()) {
      SendError(res, 404, "not_found", "no route " + req.path);
    } else {
      res.set_header("Allow", allow);
      SendError(res, 405, "method_not_allowed", req.method + " is not allowed here");
    }
    return nullptr;
  }
  const bool needs_token =
      found->route->write || (!found->route->is_public && !options_.open_reads);
  if (needs_token) {
    if (options_.token.empty()) {
      SendError(res, 403, "forbidden", "no API token is configured");
      return nullptr;
    }
    if (!ConstantTimeEquals(options_.token, BearerToken(req))) {
      res.set_header("WWW-Authenticate", "Bearer");
      SendError(res, 401, "unauthorized", "a valid bearer token is required");
      return nullptr;
    }
  }
  return found;
}

void OpsHttpServer::Serve(const CompiledRoute& route, const httplib::Request& req,
                          httplib::Response& res) const {
  std::smatch match;
  std::regex_match(req.path, match, route.pattern);
  app::OpsRequest request;
  request.method = req.method;
  request.path = req.path;
  for (size_t i = 1; i < match.size(); ++i) request.captures.push_back(match[i].str());
  for (const auto& [name, value] : req.params) request.query.emplace(name, value);
  request.body = req.body;
  for (const auto& [name, value] : req.headers) {
    std::string lower = name;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    request.headers.emplace(std::move(lower), value);
  }
  request.actor = options_.token_name.empty() ? "http" : options_.token_name;
  app::OpsResponse response;
  try {
    response = route.route->handler(request);
  } catch (const std::exception&) {
    return SendError(res, 500, "internal", "the handler failed");
  }
  res.status = response.status;
  for (const auto& [name, value] : response.headers) res.set_header(name, value);
  res.set_content(response.body, response.content_type);
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

  http_->set_payload_max_length(size_t{1} << 20);
  http_->set_keep_alive_timeout(std::max<time_t>(
      1, std::chrono::duration_cast<std::chrono::seconds>(options_.idle_timeout).count()));
  http_->set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, const std::exception_ptr&) {
        SendError(res, 500, "internal", "the handler failed");
      });

  // Routing and the token are checked before httplib reads a body, so a request that would
  // be refused is refused for that reason (401, not a 400 about its body).
  http_->set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    const CompiledRoute* route = Admit(req, res);
    if (route == nullptr) {
      // The refused request's body is left unread on the connection, so it cannot carry another.
      if (req.has_header("Content-Length") || req.has_header("Transfer-Encoding")) {
        close_after_response = true;
      }
      return httplib::Server::HandlerResponse::Handled;
    }
    // A POST or DELETE with neither Content-Length nor chunked framing has no body; httplib
    // would answer it with an empty 400, so it is served here as an empty body.
    if (!req.has_header("Content-Length") && !req.has_header("Transfer-Encoding")) {
      Serve(*route, req, res);
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  const auto handle = [this](const httplib::Request& req, httplib::Response& res) {
    if (const CompiledRoute* route = Admit(req, res)) Serve(*route, req, res);
  };
  // Anything httplib refuses by itself (a malformed request, a body over the limit) still
  // answers in the one error shape.
  http_->set_error_handler(
      httplib::Server::HandlerWithResponse([](const httplib::Request&, httplib::Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        close_after_response = true;
        SendError(res, res.status, ErrorCodeFor(res.status), ErrorMessageFor(res.status));
        return httplib::Server::HandlerResponse::Handled;
      }));
  http_->Get(".*", handle);
  http_->Post(".*", handle);
  http_->Put(".*", handle);
  http_->Patch(".*", handle);
  http_->Delete(".*", handle);
  http_->Options(".*", handle);

  const auto& [host, port] = *address;
  gate_ = std::make_unique<ConnectionGate>(
      GateOptions{.header_timeout = options_.header_timeout,
                  .idle_timeout = options_.idle_timeout,
                  .max_connections = static_cast<size_t>(std::max(options_.max_connections, 1))},
      [this](HeldConnection c) { Dispatch(std::move(c)); });
  auto bound = gate_->Listen(host, port, options_.listen);
  if (!bound) return bound.error();
  port_ = *bound;
  const auto serve = [this](HeldConnection c) { ServeConnection(std::move(c)); };
  const auto discard = [this](const HeldConnection& c) { Discard(c); };
  probes_.clear();
  for (size_t i = 0; i < options_.probe_paths.size(); ++i) {
    probes_.push_back(std::make_unique<WorkerLane>(
        static_cast<size_t>(std::max(options_.probe_threads, 1)), serve, discard));
  }
  workers_ = std::make_unique<WorkerLane>(static_cast<size_t>(std::max(options_.threads, 1)), serve,
                                          discard);
  gate_->Start();
  running_ = true;
  return port_;
}

void OpsHttpServer::Dispatch(HeldConnection connection) {
  const std::string_view path = GetPath(connection.buffered);
  const auto probe = std::find(options_.probe_paths.begin(), options_.probe_paths.end(), path);
  if (!path.empty() && probe != options_.probe_paths.end()) {
    probes_[static_cast<size_t>(probe - options_.probe_paths.begin())]->Push(std::move(connection));
    return;
  }
  workers_->Push(std::move(connection));
}

void OpsHttpServer::ServeConnection(HeldConnection connection) {
  const int fd = connection.fd;
  HeldStream stream(fd, std::move(connection.buffered),
                    std::chrono::steady_clock::now() + options_.body_timeout, kWriteTimeout);
  close_after_response = false;
  bool closed = false;
  const bool answered = http_->ProcessOne(stream, closed);
  if (answered && !closed && !close_after_response) {
    gate_->Return(HeldConnection{fd, stream.TakeUnread()});
    return;
  }
  CloseSocket(fd);
  gate_->Closed();
}

void OpsHttpServer::Discard(const HeldConnection& connection) {
  CloseSocket(connection.fd);
  gate_->Closed();
}

void OpsHttpServer::Stop() {
  if (!running_) return;
  running_ = false;
  // The gate first: nothing new reaches the lanes, and what the workers hand back is closed.
  gate_->Stop();
  for (const auto& lane : probes_) lane->Stop();
  workers_->Stop();
}

}  // namespace quell::http_server
