// The public callback routes (docs/operations.md, "Fuzzing"): signed ack links, PagerDuty's
// webhooks and Slack's button clicks, through the handlers CallbackRoutes gives the ops server,
// over in-memory stores holding a few open incidents. The harness signs some requests itself
// (as the provider would), so the fuzzer also reaches what lies past a valid signature.
// Input: a mode byte, then per mode:
//   0 GET /v1/ack/<rest>            1 POST /v1/ack/<rest>
//   2 POST /v1/ack/<token signed for the key on the first line, generation byte after it>
//   3 PagerDuty, <rest> as the body, signed      4 PagerDuty, signature line, then the body
//   5 Slack, <rest> as the form body, signed    6 Slack, timestamp line, signature line, body
//   7 Slack, <rest> as the `payload` JSON, form-encoded and signed
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "fake_clock.h"
#include "fake_incident_store.h"
#include "fake_operator_store.h"
#include "fuzz_input.h"
#include "quell/adapters/channels/ack_link.h"
#include "quell/adapters/channels/webhook/webhook_signature.h"
#include "quell/adapters/http_server/callback_routes.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/core/text/url.h"
#include "recording_log.h"

namespace {

using quell::core::WallTime;

constexpr const char* kAckSecret = "ack-link-secret-for-the-fuzzer-0123";
constexpr const char* kPagerDutySecret = "pd-subscription-secret";
constexpr const char* kSlackSecret = "8f742231b10e8888abcd99yyyzzz85a5";
const WallTime kNow(std::chrono::seconds(1798794000));

// Slack's response_url answered, as Slack answers it.
class Accepting : public quell::core::HttpClient {
 public:
  quell::core::Result<quell::core::HttpResponse> Send(
      const quell::core::HttpRequest& /*request*/) override {
    return quell::core::HttpResponse{200, {}, "ok"};
  }
};

quell::core::Incident Open(std::string key, std::string condition, uint64_t generation,
                           quell::core::Labels labels) {
  quell::core::Incident incident;
  incident.key = std::move(key);
  incident.condition = std::move(condition);
  incident.labels = std::move(labels);
  incident.generation = generation;
  incident.status = quell::core::IncidentStatus::kOpen;
  incident.version = 3;
  incident.opened_at = kNow - std::chrono::hours(1);
  incident.first_seen_at = incident.opened_at;
  incident.last_seen_at = kNow - std::chrono::minutes(1);
  incident.last_observed_at = incident.last_seen_at;
  incident.event_count = 4;
  return incident;
}

// The route the ops server would pick for `method` and `path`, with its captures; nullptr when
// none matches (the server answers 404 or 405 itself).
const quell::app::OpsRoute* Match(const std::vector<quell::app::OpsRoute>& routes,
                                  const std::string& method, const std::string& path,
                                  std::vector<std::string>& captures) {
  static std::vector<std::pair<std::string, std::regex>> compiled;
  for (const quell::app::OpsRoute& route : routes) {
    if (route.method != method) continue;
    const std::regex* pattern = nullptr;
    for (const auto& [text, regex] : compiled) {
      if (text == route.pattern) pattern = &regex;
    }
    if (pattern == nullptr) pattern = &compiled.emplace_back(route.pattern, route.pattern).second;
    std::smatch match;
    if (!std::regex_match(path, match, *pattern)) continue;
    captures.clear();
    for (size_t i = 1; i < match.size(); ++i) captures.push_back(match[i].str());
    return &route;
  }
  return nullptr;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  quell::fuzz::FuzzInput input(data, size);
  const uint8_t mode = input.Byte() % 8;

  quell::testing::FakeIncidentStore incidents;
  for (auto incident :
       {Open("db:1", "errs", 2, {{"tenant", "t1"}}), Open("api", "lat", 1, {{"tenant", "t2"}}),
        Open("t1:checkout", "errs", 7, {{"tenant", "t1"}})}) {
    incidents.state().incidents[incident.key] = incident;
  }
  quell::testing::FakeOperatorStore operators;
  const quell::jsonl::JsonPayloadEncoder encoder;
  quell::app::OperatorCommands commands(
      incidents, operators, encoder,
      [](std::string_view condition) -> std::optional<quell::app::Route> {
        if (condition == "errs") return quell::app::Route{{"hook"}, false};
        return std::nullopt;
      });
  quell::testing::FakeClock clock(kNow);
  quell::testing::RecordingLog log;
  Accepting responses;
  const auto signer = std::make_shared<const quell::channels::AckLinkSigner>(
      kAckSecret, "https://quell.example", std::chrono::hours(24));
  quell::http_server::CallbackSettings settings;
  settings.ack_links = signer;
  settings.pagerduty_secrets = {"an-older-secret", kPagerDutySecret};
  settings.slack_signing_secrets = {kSlackSecret};
  settings.slack_responses = &responses;
  const std::vector<quell::app::OpsRoute> routes =
      quell::http_server::CallbackRoutes(commands, clock, log, settings);

  quell::app::OpsRequest request;
  request.actor = "http";
  switch (mode) {
    case 0:
    case 1:
      request.method = mode == 0 ? "GET" : "POST";
      request.path = "/v1/ack/" + std::string(input.Rest());
      break;
    case 2: {
      const std::string key(input.Line());
      const uint64_t generation = input.Byte() % 9;
      request.method = "POST";
      request.path = "/v1/ack/" + signer->Token(key, generation, kNow + std::chrono::hours(1)) +
                     std::string(input.Rest());
      break;
    }
    case 3:
    case 4: {
      request.method = "POST";
      request.path = "/v1/pagerduty/webhook";
      const std::string signature = mode == 4 ? std::string(input.Line()) : std::string();
      request.body = std::string(input.Rest());
      request.headers["x-pagerduty-signature"] =
          mode == 4 ? signature
                    : "v1=" + quell::channels::HmacSha256Hex(kPagerDutySecret, request.body);
      break;
    }
    default: {
      request.method = "POST";
      request.path = "/v1/slack/interactivity";
      std::string timestamp = std::to_string(
          std::chrono::duration_cast<std::chrono::seconds>(kNow.time_since_epoch()).count());
      std::string signature;
      if (mode == 6) {
        timestamp = std::string(input.Line());
        signature = std::string(input.Line());
      }
      request.body =
          mode == 7 ? "payload=" + quell::core::UrlEncode(input.Rest()) : std::string(input.Rest());
      if (mode != 6) {
        signature = "v0=" + quell::channels::HmacSha256Hex(kSlackSecret,
                                                           "v0:" + timestamp + ":" + request.body);
      }
      request.headers["x-slack-request-timestamp"] = timestamp;
      request.headers["x-slack-signature"] = signature;
      break;
    }
  }

  const quell::app::OpsRoute* route = Match(routes, request.method, request.path, request.captures);
  if (route == nullptr) return 0;
  const quell::app::OpsResponse response = route->handler(request);
  quell::fuzz::Require(response.status >= 200 && response.status < 600, "an odd HTTP status");
  quell::fuzz::Require(response.status != 500, "a callback route answered 500");
  bool changed = false;
  for (const auto& [key, incident] : incidents.state().incidents) {
    changed = changed || !incident.is_open() || incident.acked_at.has_value();
  }
  // Only a request signed with the right secret changes anything: a pager's or Slack's request
  // signed with no secret of ours, or an ack link other than one the signer made (a sentence's
  // full stop after it aside).
  quell::fuzz::Require(!changed || (mode != 4 && mode != 6), "an unsigned callback acted");
  if (changed && mode <= 1) {
    std::string_view token = request.captures.front();
    while (token.ends_with('.')) token.remove_suffix(1);
    auto claim = signer->Verify(token, kNow);
    quell::fuzz::Require(
        claim && signer->Token(claim->key, claim->generation, claim->expires_at) == token,
        "an ack link the signer did not make acked");
  }
  return 0;
}
