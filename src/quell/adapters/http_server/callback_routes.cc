#include "quell/adapters/http_server/callback_routes.h"

#include <mutex>
#include <string>
#include <utility>

namespace quell::http_server {
namespace {

std::string HtmlEscape(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

app::OpsResponse Page(int status, std::string_view title, const std::string& body_html) {
  app::OpsResponse response;
  response.status = status;
  response.content_type = "text/html; charset=utf-8";
  response.body =
      "<!doctype html>\n<html><head><meta charset=\"utf-8\">"
      "<meta name=\"robots\" content=\"noindex\"><title>" +
      HtmlEscape(title) + "</title></head><body>\n<h1>" + HtmlEscape(title) + "</h1>\n" +
      body_html + "\n</body></html>\n";
  return response;
}

int StatusOf(core::ErrorCode code) {
  switch (code) {
    case core::ErrorCode::kInvalidArgument:
      return 400;
    case core::ErrorCode::kPermissionDenied:
      return 403;
    case core::ErrorCode::kNotFound:
      return 404;
    case core::ErrorCode::kRejected:
    case core::ErrorCode::kConflict:
      return 409;
    case core::ErrorCode::kUnavailable:
    case core::ErrorCode::kTimeout:
      return 503;
    default:
      return 500;
  }
}

// A token's own refusal: expired is 410 Gone (the link will never work again).
int TokenStatus(core::ErrorCode code) {
  return code == core::ErrorCode::kRejected ? 410 : StatusOf(code);
}

app::OpsResponse Refused(int status, const core::Error& error) {
  return Page(status, "Not acknowledged", "<p>" + HtmlEscape(error.message) + "</p>");
}

const std::string& Capture(const app::OpsRequest& request) {
  static const std::string kNone;
  return request.captures.empty() ? kNone : request.captures.front();
}

// The claim of the request's token; the refusal, logged, when it carries none.
core::Result<channels::AckClaim> Claim(const channels::AckLinkSigner& signer,
                                       const app::OpsRequest& request, core::WallTime now,
                                       core::EventLog& log) {
  auto claim = signer.Verify(Capture(request), now);
  if (claim) return claim;
  log.Log(core::LogLevel::kWarn, "http.ack_link",
          {{"method", request.method}, {"status", "refused"}, {"error", claim.error().message}});
  return claim.error();
}

app::OpsResponse AskPage(const channels::AckClaim& claim) {
  const std::string key = HtmlEscape(claim.key);
  return Page(200, "Acknowledge " + claim.key + "?",
              "<p>Incident <code>" + key + "</code>, generation " +
                  std::to_string(claim.generation) +
                  ". Acknowledging stops its reminders until it opens again.</p>\n"
                  "<form method=\"post\"><button type=\"submit\">Acknowledge</button></form>\n"
                  "<p>This link works until " +
                  core::FormatRfc3339(claim.expires_at) + ".</p>");
}

app::OpsResponse AckedPage(const core::Incident& incident) {
  std::string when = incident.acked_at ? core::FormatRfc3339(*incident.acked_at) : "";
  return Page(200, "Acknowledged " + incident.key,
              "<p>Incident <code>" + HtmlEscape(incident.key) + "</code>, generation " +
                  std::to_string(incident.generation) + ", is acknowledged (by " +
                  HtmlEscape(incident.acked_by) + " at " + when + ").</p>");
}

}  // namespace

std::vector<app::OpsRoute> CallbackRoutes(app::OperatorCommands& commands, core::Clock& clock,
                                          core::EventLog& log, CallbackSettings settings) {
  auto lock = std::make_shared<std::mutex>();
  std::vector<app::OpsRoute> routes;
  const auto add = [&](const char* method, const char* pattern, app::OpsHandler handler) {
    routes.push_back(
        app::OpsRoute{method, pattern, /*write=*/false,
                      [lock, handler = std::move(handler)](const app::OpsRequest& request) {
                        const std::lock_guard<std::mutex> guard(*lock);
                        return handler(request);
                      },
                      /*is_public=*/true});
  };
  if (auto signer = settings.ack_links) {
    add("GET", "^/v1/ack/(.+)$", [signer, &clock, &log](const app::OpsRequest& request) {
      auto claim = Claim(*signer, request, clock.Now(), log);
      if (!claim) return Refused(TokenStatus(claim.error().code), claim.error());
      return AskPage(*claim);
    });
    add("POST", "^/v1/ack/(.+)$",
        [signer, &commands, &clock, &log](const app::OpsRequest& request) {
          const core::WallTime now = clock.Now();
          auto claim = Claim(*signer, request, now, log);
          if (!claim) return Refused(TokenStatus(claim.error().code), claim.error());
          auto acked = commands.Ack(claim->key, "link", now, claim->generation);
          if (!acked) {
            log.Log(core::LogLevel::kWarn, "http.ack_link",
                    {{"method", "POST"},
                     {"key", claim->key},
                     {"generation", claim->generation},
                     {"status", "refused"},
                     {"error", acked.error().message}});
            return Refused(StatusOf(acked.error().code), acked.error());
          }
          log.Log(core::LogLevel::kInfo, "http.ack_link",
                  {{"method", "POST"},
                   {"key", claim->key},
                   {"generation", claim->generation},
                   {"status", "acked"},
                   {"who", acked->acked_by}});
          return AckedPage(*acked);
        });
  }
  return routes;
}

}  // namespace quell::http_server
