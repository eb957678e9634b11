#include "quell/adapters/http_server/ops_http_server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <cerrno>
#include <charconv>
#include <exception>
#include <regex>
#include <system_error>
#include <thread>
#include <utility>

#include "quell/core/json_escape.h"

namespace quell::http_server {

struct OpsHttpServer::CompiledRoute {
  const app::OpsRoute* route;
  std::regex pattern;
};

namespace {

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
      http_(std::make_unique<httplib::Server>()) {}

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
  request.actor = options_.token_name.empty() ? "http" : options_.token_name;
  app::OpsResponse response;
  try {
    response = route.route->handler(request);
  } catch (const std::exception&) {
    return SendError(res, 500, "internal", "the handler failed");
  }
  res.status = response.status;
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

  const int threads = options_.threads > 0 ? options_.threads : 1;
  http_->new_task_queue = [threads] {
    return new httplib::ThreadPool(static_cast<size_t>(threads));
  };
  http_->set_payload_max_length(size_t{1} << 20);
  http_->set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, const std::exception_ptr&) {
        SendError(res, 500, "internal", "the handler failed");
      });

  // Routing and the token are checked before httplib reads a body, so a request that would
  // be refused is refused for that reason (401, not a 400 about its body).
  http_->set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    const CompiledRoute* route = Admit(req, res);
    if (route == nullptr) return httplib::Server::HandlerResponse::Handled;
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
        SendError(res, res.status, ErrorCodeFor(res.status), ErrorMessageFor(res.status));
        return httplib::Server::HandlerResponse::Handled;
      }));
  http_->Get(".*", handle);
  http_->Post(".*", handle);
  http_->Put(".*", handle);
  http_->Patch(".*", handle);
  http_->Delete(".*", handle);
  http_->Options(".*", handle);

  // cpp-httplib's default sets SO_REUSEPORT, with which a second daemon binds the same port
  // and the kernel splits the connections between the two. SO_REUSEADDR alone still allows a
  // restart while old connections linger in TIME_WAIT, and makes a taken port fail to bind.
  http_->set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  const auto& [host, port] = *address;
  if (port == 0) {
    port_ = http_->bind_to_any_port(host);
    if (port_ <= 0) {
      return core::MakeError(core::ErrorCode::kUnavailable, "cannot bind " + host + ":0");
    }
  } else {
    errno = 0;
    if (!http_->bind_to_port(host, port)) {
      const int error = errno;
      return core::MakeError(
          core::ErrorCode::kUnavailable,
          "cannot listen on " + options_.listen + ": " +
              (error == EADDRINUSE ? std::string("the address is already in use (another "
                                                 "quell run, or another program, holds it)")
               : error != 0        ? std::generic_category().message(error)
                                   : std::string("cannot bind it")));
    }
    port_ = port;
  }
  listen_returned_ = false;
  thread_ = std::thread([this] {
    http_->listen_after_bind();
    listen_returned_ = true;
  });
  return port_;
}

void OpsHttpServer::Stop() {
  if (!thread_.joinable()) return;
  // httplib's stop() does nothing until the accept loop runs; a Stop right after Start must
  // wait for it, or the join would hang. Connections queue in the backlog meanwhile.
  while (!http_->is_running() && !listen_returned_) std::this_thread::yield();
  http_->stop();
  thread_.join();
}

}  // namespace quell::http_server
