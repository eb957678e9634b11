#include "quell/adapters/http_server/callback_routes.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

#include "quell/adapters/channels/callback_signatures.h"
#include "quell/app/pager_callback.h"
#include "quell/core/redact/redact.h"
#include "quell/core/text/url.h"

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
  // A sentence's full stop after a link in a message is not part of it (a token never ends in
  // a dot).
  std::string_view token = Capture(request);
  while (token.ends_with('.')) token.remove_suffix(1);
  auto claim = signer.Verify(token, now);
  if (claim) return claim;
  log.Log(core::LogLevel::kWarn, "http.ack_link",
          {{"method", request.method}, {"status", "refused"}, {"error", claim.error().message}});
  return claim.error();
}

// The form of an ack page: who acks, then the button. The name is what the ack records
// ("link:<name>"); left empty, the ack records "link" alone, and the page says so.
std::string AckForm() {
  return "<form method=\"post\"><p><label for=\"name\">Your name</label> "
         "<input id=\"name\" name=\"name\" maxlength=\"" +
         std::to_string(core::kMaxActorName) +
         "\" autocomplete=\"name\"></p>\n"
         "<p>The ack records this name as <code>link:&lt;name&gt;</code>; left empty, it "
         "records only <code>link</code>.</p>\n"
         "<button type=\"submit\">Acknowledge</button></form>\n";
}

std::string PagePath(std::string_view prefix, std::string_view part) {
  return std::string(prefix) + core::UrlEncode(part);
}

app::OpsResponse AskPage(const channels::AckClaim& claim) {
  const std::string key = HtmlEscape(claim.key);
  return Page(
      200, "Acknowledge " + claim.key + "?",
      "<p>Incident <code>" + key + "</code>, generation " + std::to_string(claim.generation) +
          ". Acknowledging stops its reminders until it opens again.</p>\n" + AckForm() +
          "<p>This link works until " + core::FormatRfc3339(claim.expires_at) + ". <a href=\"" +
          HtmlEscape(PagePath("/incidents/", claim.key)) + "\">The incident in quell</a>.</p>");
}

// The group's page in quell (docs/page.md).
std::string GroupPagePath(const channels::AckClaim& claim) {
  return PagePath("/groups/", claim.channel) + PagePath("/", claim.group_key);
}

std::string GroupName(const channels::AckClaim& claim) {
  return "group <code>" + HtmlEscape(claim.group_key) + "</code> on <code>" +
         HtmlEscape(claim.channel) + "</code>";
}

// At most this many keys are listed on a group's ack page; the count is always whole.
constexpr size_t kListedKeys = 20;

std::string KeyList(const std::vector<std::string>& keys) {
  std::string out = "<ul>\n";
  for (size_t i = 0; i < keys.size() && i < kListedKeys; ++i) {
    out += "<li><a href=\"" + HtmlEscape(PagePath("/incidents/", keys[i])) + "\"><code>" +
           HtmlEscape(keys[i]) + "</code></a></li>\n";
  }
  if (keys.size() > kListedKeys) {
    out += "<li>and " + std::to_string(keys.size() - kListedKeys) + " more</li>\n";
  }
  return out + "</ul>\n";
}

std::string Incidents(size_t n) {
  return std::to_string(n) + (n == 1 ? " incident" : " incidents");
}

app::OpsResponse AskGroupPage(const channels::AckClaim& claim,
                              const std::vector<std::string>& open_keys) {
  return Page(200, "Acknowledge group " + claim.group_key + "?",
              "<p>" + Incidents(open_keys.size()) + " of " + GroupName(claim) +
                  " are open now; acknowledging stops their reminders and escalations until "
                  "each opens again:</p>\n" +
                  KeyList(open_keys) + AckForm() +
                  "<p>The ack reaches the members open when you press it, of this episode of "
                  "the group (its messages from the one that opened it). This link works until " +
                  core::FormatRfc3339(claim.expires_at) + ". <a href=\"" +
                  HtmlEscape(GroupPagePath(claim)) + "\">The group in quell</a>.</p>");
}

app::OpsResponse AckedGroupPage(const channels::AckClaim& claim,
                                const std::vector<std::string>& keys, std::string_view by,
                                core::WallTime now) {
  return Page(200, "Acknowledged group " + claim.group_key,
              "<p>" + Incidents(keys.size()) + " of " + GroupName(claim) + " acknowledged (by " +
                  HtmlEscape(by) + " at " + core::FormatRfc3339(now) +
                  "; one acked before keeps its first ack):</p>\n" + KeyList(keys) +
                  "<p><a href=\"" + HtmlEscape(GroupPagePath(claim)) +
                  "\">The group in quell</a>.</p>");
}

app::OpsResponse AckedPage(const core::Incident& incident) {
  std::string when = incident.acked_at ? core::FormatRfc3339(*incident.acked_at) : "";
  return Page(200, "Acknowledged " + incident.key,
              "<p>Incident <code>" + HtmlEscape(incident.key) + "</code>, generation " +
                  std::to_string(incident.generation) + ", is acknowledged (by " +
                  HtmlEscape(incident.acked_by) + " at " + when + ").</p>");
}

// What a group's link names, as the group alert key PagerDuty is sent
// (core/delivery/callback_key.h): the members its episode's messages carried.
core::CallbackKey GroupKeyOf(const channels::AckClaim& claim) {
  core::CallbackKey key;
  key.kind = core::CallbackKey::Kind::kGroupAlert;
  key.channel = claim.channel;
  key.group_key = claim.group_key;
  key.episode = claim.episode;
  return key;
}

// The keys of the group's members, open now, that `claim`'s episode carried.
core::Result<std::vector<std::string>> OpenKeysOf(app::OperatorCommands& commands,
                                                  const channels::AckClaim& claim,
                                                  core::WallTime now) {
  auto targets = commands.CallbackTargets(GroupKeyOf(claim), now);
  if (!targets) return targets.error();
  std::vector<std::string> keys;
  for (const core::IncidentGeneration& target : *targets) keys.push_back(target.key);
  return keys;
}

core::Error NothingOpen() {
  return core::MakeError(core::ErrorCode::kRejected,
                         "no member of this group's episode is open any more (every one resolved, "
                         "or the episode ended and a later message opened another)");
}

app::OpsResponse Json(int status, const nlohmann::json& body) {
  app::OpsResponse response;
  response.status = status;
  response.body = body.dump();
  return response;
}

app::OpsResponse JsonError(int status, const char* code, const std::string& message) {
  return Json(status, {{"error", {{"code", code}, {"message", message}}}});
}

std::string Header(const app::OpsRequest& request, const std::string& lower_name) {
  const auto it = request.headers.find(lower_name);
  return it == request.headers.end() ? std::string() : it->second;
}

std::string StringAt(const nlohmann::json& object, const char* name) {
  if (!object.is_object()) return {};
  const auto it = object.find(name);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A provider's event id fit to remember: printable ASCII, at most 255 bytes (PagerDuty's and
// Slack's are a few dozen).
bool IsEventId(std::string_view id) {
  return !id.empty() && id.size() <= 255 &&
         std::all_of(id.begin(), id.end(), [](char c) { return c > ' ' && c < 0x7f; });
}

// One PagerDuty v3 webhook delivery, signature checked. Acting events must carry the event's
// id and occurred_at (both signed): the id is remembered so that a second delivery changes
// nothing, and nothing that opened after occurred_at is touched (app::ApplyPagerAction).
app::OpsResponse PagerDutyEvent(app::OperatorCommands& commands, core::WallTime now,
                                core::EventLog& log, const std::string& body) {
  const nlohmann::json doc = nlohmann::json::parse(body, nullptr, false);
  const nlohmann::json* event = doc.is_object() && doc.contains("event") ? &doc["event"] : nullptr;
  if (event == nullptr || !event->is_object()) {
    log.Log(core::LogLevel::kWarn, "http.pagerduty",
            {{"status", "refused"}, {"error", "the body is not a v3 webhook event"}});
    return JsonError(400, "bad_request", "the body is not a PagerDuty v3 webhook event");
  }
  const std::string type = StringAt(*event, "event_type");
  const nlohmann::json data = event->value("data", nlohmann::json::object());
  const std::string dedup_key = StringAt(data, "incident_key");
  const bool acts = type == "incident.acknowledged" || type == "incident.resolved";
  if (!acts || dedup_key.empty()) {
    log.Log(core::LogLevel::kInfo, "http.pagerduty",
            {{"event_type", type}, {"dedup_key", dedup_key}, {"status", "ignored"}});
    return Json(200, {{"ignored", type}});
  }
  const std::string id = StringAt(*event, "id");
  const auto occurred_at = core::ParseRfc3339(StringAt(*event, "occurred_at"));
  if (!IsEventId(id) || !occurred_at) {
    const std::string error = !IsEventId(id) ? "the event has no usable id (event.id)"
                                             : "the event has no valid occurred_at";
    log.Log(core::LogLevel::kWarn, "http.pagerduty",
            {{"event_type", type}, {"status", "refused"}, {"error", error}});
    return JsonError(400, "bad_request", error);
  }
  if (app::IsStalePagerDutyEvent(*occurred_at, now)) {
    log.Log(core::LogLevel::kWarn, "http.pagerduty",
            {{"event_type", type},
             {"dedup_key", dedup_key},
             {"event_id", id},
             {"status", "stale"},
             {"error",
              "occurred at " + core::FormatRfc3339(*occurred_at) + ", past PagerDuty's retries"}});
    return Json(200, {{"ignored", "stale"}});
  }
  // Who acted in PagerDuty: the agent's summary (a user's name), else its id.
  const nlohmann::json agent_ref = event->value("agent", nlohmann::json());
  std::string agent = core::RedactActorName(StringAt(agent_ref, "summary"));
  if (agent.empty()) agent = core::RedactActorName(StringAt(agent_ref, "id"));
  const std::string by = agent.empty() ? std::string("pagerduty") : "pagerduty:" + agent;
  const app::PagerAction action =
      type == "incident.acknowledged" ? app::PagerAction::kAck : app::PagerAction::kResolve;
  auto done = app::ApplyPagerAction(commands, dedup_key, action, by,
                                    app::PagerDutyEvent(id, *occurred_at, now), now);
  if (!done && done.error().code == core::ErrorCode::kNotFound) {
    log.Log(core::LogLevel::kInfo, "http.pagerduty",
            {{"event_type", type},
             {"dedup_key", dedup_key},
             {"event_id", id},
             {"status", "unknown"},
             {"error", done.error().message}});
    return Json(200, {{"event_type", type}, {"keys", nlohmann::json::array()}});
  }
  if (!done) {
    log.Log(core::LogLevel::kWarn, "http.pagerduty",
            {{"event_type", type},
             {"dedup_key", dedup_key},
             {"event_id", id},
             {"status", "failed"},
             {"error", done.error().message}});
    return JsonError(StatusOf(done.error().code), "unavailable", done.error().message);
  }
  const char* status = done->duplicate                    ? "duplicate"
                       : done->keys.empty()               ? "unknown"
                       : action == app::PagerAction::kAck ? "acked"
                                                          : "resolved";
  log.Log(core::LogLevel::kInfo, "http.pagerduty",
          {{"event_type", type},
           {"dedup_key", dedup_key},
           {"event_id", id},
           {"status", status},
           {"keys", std::to_string(done->keys.size())},
           {"who", by}});
  nlohmann::json answer = {{"event_type", type}, {"keys", done->keys}};
  if (done->duplicate) answer["duplicate"] = true;
  return Json(200, answer);
}

// The value of form field `name` in an application/x-www-form-urlencoded body.
std::string FormField(std::string_view body, std::string_view name) {
  while (!body.empty()) {
    const size_t amp = body.find('&');
    const std::string_view pair = body.substr(0, amp);
    body = amp == std::string_view::npos ? std::string_view{} : body.substr(amp + 1);
    const size_t eq = pair.find('=');
    if (eq == std::string_view::npos || pair.substr(0, eq) != name) continue;
    std::string out;
    const std::string_view value = pair.substr(eq + 1);
    for (size_t i = 0; i < value.size(); ++i) {
      if (value[i] == '+') {
        out += ' ';
      } else if (value[i] == '%' && i + 2 < value.size() &&
                 std::isxdigit(static_cast<unsigned char>(value[i + 1])) != 0 &&
                 std::isxdigit(static_cast<unsigned char>(value[i + 2])) != 0) {
        out += static_cast<char>(std::stoi(std::string(value.substr(i + 1, 2)), nullptr, 16));
        i += 2;
      } else {
        out += value[i];
      }
    }
    return out;
  }
  return {};
}

// Tells the clicker `text`, only them, under the message. Slack shows nothing of the answer to
// a block_actions request (it only acknowledges receipt); a reply goes to the payload's
// response_url (docs.slack.dev/interactivity/handling-user-interaction, "Message
// responses"). Best effort within Slack's 3 seconds: the ack stands whatever becomes of it.
// The URL is a credential for that message, so it is never logged.
void Respond(core::HttpClient* http, const std::string& response_url, const std::string& text,
             core::EventLog& log) {
  if (http == nullptr || response_url.empty()) return;
  if (!response_url.starts_with("https://") && !response_url.starts_with("http://")) {
    log.Log(core::LogLevel::kWarn, "http.slack",
            {{"status", "response_failed"}, {"error", "response_url is not an http(s) URL"}});
    return;
  }
  core::HttpRequest request;
  request.method = "POST";
  request.url = response_url;
  request.headers = {{"Content-Type", "application/json"}};
  request.body = nlohmann::json{
      {"response_type", "ephemeral"},
      {"replace_original", false},
      {"text", text}}.dump();
  request.connect_timeout = std::chrono::seconds(1);
  request.total_timeout = std::chrono::seconds(2);
  auto sent = http->Send(request);
  if (sent && sent->status / 100 == 2) return;
  const std::string error = sent ? "response_url answered HTTP " + std::to_string(sent->status)
                                 : "response_url: " + sent.error().message;
  log.Log(core::LogLevel::kWarn, "http.slack", {{"status", "response_failed"}, {"error", error}});
}

// When the clicked message was posted: Slack's "1548261231.000200" message_ts of the
// payload's container (or message); nullopt when neither says.
std::optional<core::WallTime> PostedAt(const nlohmann::json& payload) {
  std::string ts = StringAt(payload.value("container", nlohmann::json::object()), "message_ts");
  if (ts.empty()) ts = StringAt(payload.value("message", nlohmann::json::object()), "ts");
  const size_t dot = ts.find('.');
  const std::string seconds = ts.substr(0, dot);
  const std::string micros = dot == std::string::npos ? "" : ts.substr(dot + 1);
  const auto digits = [](const std::string& text) {
    return std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (seconds.empty() || seconds.size() > 12 || micros.size() > 6 || !digits(seconds) ||
      !digits(micros)) {
    return std::nullopt;
  }
  int64_t fraction = micros.empty() ? 0 : std::stoll(micros);
  for (size_t i = micros.size(); i < 6; ++i) fraction *= 10;
  return core::WallTime(std::chrono::seconds(std::stoll(seconds)) +
                        std::chrono::microseconds(fraction));
}

// One Slack interaction, signature checked. The click's trigger id is remembered so that a
// second delivery changes nothing; nothing that opened after its message was posted is acked.
app::OpsResponse SlackInteraction(app::OperatorCommands& commands, core::HttpClient* responses,
                                  core::WallTime now, core::EventLog& log,
                                  const std::string& body) {
  const nlohmann::json payload = nlohmann::json::parse(FormField(body, "payload"), nullptr, false);
  std::string value;
  if (payload.is_object() && StringAt(payload, "type") == "block_actions" &&
      payload.contains("actions") && payload["actions"].is_array()) {
    for (const nlohmann::json& action : payload["actions"]) {
      if (StringAt(action, "action_id") == "quell_ack") value = StringAt(action, "value");
    }
  }
  if (value.empty()) {
    log.Log(core::LogLevel::kInfo, "http.slack", {{"status", "ignored"}});
    return Json(200, nlohmann::json::object());
  }
  const nlohmann::json user = payload.value("user", nlohmann::json::object());
  std::string name = core::RedactActorName(StringAt(user, "username"));
  if (name.empty()) name = core::RedactActorName(StringAt(user, "id"));
  const std::string by = name.empty() ? std::string("slack") : "slack:" + name;
  const std::string response_url = StringAt(payload, "response_url");
  std::string trigger_id = StringAt(payload, "trigger_id");
  if (!IsEventId(trigger_id)) trigger_id.clear();  // not remembered
  const auto reply = [](const std::string& text) {
    return Json(200, {{"response_type", "ephemeral"}, {"replace_original", false}, {"text", text}});
  };
  auto done =
      app::ApplyPagerAction(commands, value, app::PagerAction::kAck, by,
                            app::SlackClick(trigger_id, PostedAt(payload).value_or(now), now), now);
  if (done && done->duplicate) {
    log.Log(core::LogLevel::kInfo, "http.slack", {{"key", value}, {"status", "duplicate"}});
    return reply("This click was handled already");
  }
  std::string error;
  if (!done) {
    error = done.error().message;
  } else if (done->keys.empty()) {
    error = "nothing this message names is still open at the generation it was sent for";
  }
  if (!error.empty()) {
    log.Log(core::LogLevel::kWarn, "http.slack",
            {{"key", value}, {"status", "refused"}, {"error", error}});
    const std::string text = "Not acknowledged: " + error;
    Respond(responses, response_url, text, log);
    return reply(text);
  }
  log.Log(core::LogLevel::kInfo, "http.slack",
          {{"key", value},
           {"status", "acked"},
           {"keys", std::to_string(done->keys.size())},
           {"who", by}});
  const std::string text = "Acknowledged by " + by;
  Respond(responses, response_url, text, log);
  return reply(text);
}

// A group's link pressed: every member of its episode open now, acked in one transaction as a
// callback's (each keeps an earlier ack; the waiting escalation tiers are cancelled with it).
app::OpsResponse AckGroup(app::OperatorCommands& commands, const channels::AckClaim& claim,
                          const std::string& by, core::WallTime now, core::EventLog& log) {
  const auto apply = [&]() -> core::Result<app::CallbackOutcome> {
    auto targets = commands.CallbackTargets(GroupKeyOf(claim), now);
    if (!targets) return targets.error();
    app::CallbackAction action;
    action.targets = std::move(*targets);
    action.by = by;
    action.opened_by = now;
    action.provider = "link";
    auto outcome = commands.ApplyCallback(action, now);
    if (outcome && outcome->keys.empty()) return NothingOpen();
    return outcome;
  };
  const core::Result<app::CallbackOutcome> done = apply();
  const std::string group = claim.channel + " " + claim.group_key;
  if (!done) {
    log.Log(core::LogLevel::kWarn, "http.ack_link",
            {{"method", "POST"},
             {"group", group},
             {"episode", claim.episode},
             {"status", "refused"},
             {"error", done.error().message}});
    return Refused(StatusOf(done.error().code), done.error());
  }
  log.Log(core::LogLevel::kInfo, "http.ack_link",
          {{"method", "POST"},
           {"group", group},
           {"episode", claim.episode},
           {"status", "acked"},
           {"keys", std::to_string(done->keys.size())},
           {"who", by}});
  return AckedGroupPage(claim, done->keys, by, now);
}

// Which kinds of callback get a route.
struct Kinds {
  bool ack_links = false;
  bool pagerduty = false;
  bool slack = false;
};

app::OpsResponse NotConfigured(const char* what) {
  return JsonError(404, "not_found", std::string(what) + " not configured");
}

std::vector<app::OpsRoute> Routes(app::OperatorCommands& commands, core::Clock& clock,
                                  core::EventLog& log, const CallbackSettingsSource& source,
                                  Kinds kinds) {
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
  if (kinds.ack_links) {
    add("GET", "^/v1/ack/(.+)$", [source, &commands, &clock, &log](const app::OpsRequest& request) {
      const std::shared_ptr<const CallbackSettings> settings = source();
      if (!settings->ack_links) return NotConfigured("ack links are");
      const core::WallTime now = clock.Now();
      auto claim = Claim(*settings->ack_links, request, now, log);
      if (!claim) return Refused(TokenStatus(claim.error().code), claim.error());
      if (!claim->is_group()) return AskPage(*claim);
      auto keys = OpenKeysOf(commands, *claim, now);
      if (!keys) return Refused(StatusOf(keys.error().code), keys.error());
      if (keys->empty()) return Refused(409, NothingOpen());
      return AskGroupPage(*claim, *keys);
    });
    add("POST", "^/v1/ack/(.+)$",
        [source, &commands, &clock, &log](const app::OpsRequest& request) {
          const std::shared_ptr<const CallbackSettings> settings = source();
          if (!settings->ack_links) return NotConfigured("ack links are");
          const core::WallTime now = clock.Now();
          auto claim = Claim(*settings->ack_links, request, now, log);
          if (!claim) return Refused(TokenStatus(claim.error().code), claim.error());
          const std::string name = core::RedactActorName(FormField(request.body, "name"));
          const std::string by = name.empty() ? std::string("link") : "link:" + name;
          if (claim->is_group()) return AckGroup(commands, *claim, by, now, log);
          auto acked = commands.Ack(claim->key, by, now, claim->generation);
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
  if (kinds.pagerduty) {
    add("POST", "^/v1/pagerduty/webhook$",
        [source, &commands, &clock, &log](const app::OpsRequest& request) {
          const std::shared_ptr<const CallbackSettings> settings = source();
          if (settings->pagerduty_secrets.empty()) return NotConfigured("PagerDuty webhooks are");
          auto signed_ok = channels::VerifyPagerDutySignature(
              settings->pagerduty_secrets, Header(request, "x-pagerduty-signature"), request.body);
          if (!signed_ok) {
            log.Log(core::LogLevel::kWarn, "http.pagerduty",
                    {{"status", "refused"}, {"error", signed_ok.error().message}});
            return JsonError(401, "unauthorized", signed_ok.error().message);
          }
          return PagerDutyEvent(commands, clock.Now(), log, request.body);
        });
  }
  if (kinds.slack) {
    add("POST", "^/v1/slack/interactivity$",
        [source, &commands, &clock, &log](const app::OpsRequest& request) {
          const std::shared_ptr<const CallbackSettings> settings = source();
          if (settings->slack_signing_secrets.empty()) return NotConfigured("Slack clicks are");
          const core::WallTime now = clock.Now();
          core::Status signed_ok;
          for (const std::string& secret : settings->slack_signing_secrets) {
            signed_ok = channels::VerifySlackSignature(
                secret, Header(request, "x-slack-request-timestamp"),
                Header(request, "x-slack-signature"), request.body, now);
            if (signed_ok) break;
          }
          if (!signed_ok) {
            log.Log(core::LogLevel::kWarn, "http.slack",
                    {{"status", "refused"}, {"error", signed_ok.error().message}});
            return JsonError(401, "unauthorized", signed_ok.error().message);
          }
          return SlackInteraction(commands, settings->slack_responses, now, log, request.body);
        });
  }
  return routes;
}

}  // namespace

std::vector<app::OpsRoute> CallbackRoutes(app::OperatorCommands& commands, core::Clock& clock,
                                          core::EventLog& log, const CallbackSettings& settings) {
  const Kinds kinds{.ack_links = settings.ack_links != nullptr,
                    .pagerduty = !settings.pagerduty_secrets.empty(),
                    .slack = !settings.slack_signing_secrets.empty()};
  return Routes(
      commands, clock, log,
      [fixed = std::make_shared<const CallbackSettings>(settings)] { return fixed; }, kinds);
}

std::vector<app::OpsRoute> CallbackRoutes(app::OperatorCommands& commands, core::Clock& clock,
                                          core::EventLog& log,
                                          const CallbackSettingsSource& settings) {
  return Routes(commands, clock, log, settings,
                Kinds{.ack_links = true, .pagerduty = true, .slack = true});
}

}  // namespace quell::http_server
