#include "quell/adapters/http_server/session_routes.h"

#include <chrono>
#include <string>

namespace quell::http_server {
namespace {

app::OpsResponse Json(int status, std::string body) {
  app::OpsResponse response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

std::string Header(const app::OpsRequest& request, const std::string& lower_name) {
  const auto it = request.headers.find(lower_name);
  return it == request.headers.end() ? std::string() : it->second;
}

constexpr uint64_t kSessionBody = 1024;  // the routes read no body

}  // namespace

std::vector<app::OpsRoute> SessionRoutes(SessionStore& sessions, bool secure, core::EventLog& log) {
  std::vector<app::OpsRoute> routes;
  routes.push_back(app::OpsRoute{
      .method = "POST",
      .pattern = "^/v1/session$",
      .write = true,
      .handler =
          [&sessions, secure, &log](const app::OpsRequest& request) {
            // A session makes no other: a stolen cookie must not outlive its own expiry.
            if (request.auth != "token") {
              log.Log(core::LogLevel::kWarn, "http.session",
                      {{"action", "login"}, {"status", "refused"}, {"who", request.actor}});
              app::OpsResponse refused = Json(
                  401, R"({"error":{"code":"unauthorized","message":"log in with the API token )"
                       R"((Authorization: Bearer ...), not with a session"}})");
              refused.headers.emplace_back("WWW-Authenticate", "Bearer");
              return refused;
            }
            const std::string id = sessions.Create();
            log.Log(core::LogLevel::kInfo, "http.session",
                    {{"action", "login"}, {"status", "200"}, {"who", request.actor}});
            const auto seconds =
                std::chrono::duration_cast<std::chrono::seconds>(sessions.ttl()).count();
            app::OpsResponse response =
                Json(200, R"({"session":{"expires_in":)" + std::to_string(seconds) + "}}");
            response.headers.emplace_back("Set-Cookie",
                                          SessionSetCookie(id, sessions.ttl(), secure));
            response.headers.emplace_back("Cache-Control", "no-store");
            return response;
          },
      .is_public = false,
      .max_body = kSessionBody});
  routes.push_back(
      app::OpsRoute{.method = "DELETE",
                    .pattern = "^/v1/session$",
                    .write = false,
                    .handler =
                        [&sessions, secure, &log](const app::OpsRequest& request) {
                          const std::string id = SessionIdOf(Header(request, "cookie"));
                          const bool had = sessions.Valid(id);
                          sessions.Remove(id);
                          log.Log(core::LogLevel::kInfo, "http.session",
                                  {{"action", "logout"}, {"status", had ? "200" : "no_session"}});
                          app::OpsResponse response = Json(200, R"({"session":null})");
                          response.headers.emplace_back("Set-Cookie", SessionClearCookie(secure));
                          return response;
                        },
                    .is_public = true,
                    .max_body = kSessionBody});
  routes.push_back(app::OpsRoute{
      .method = "GET",
      .pattern = "^/v1/session$",
      .write = false,
      .handler =
          [](const app::OpsRequest& request) {
            return Json(200, request.auth.empty() ? std::string(R"({"auth":null})")
                                                  : R"({"auth":")" + request.auth + "\"}");
          },
      .is_public = true,
      .max_body = kSessionBody});
  return routes;
}

}  // namespace quell::http_server
