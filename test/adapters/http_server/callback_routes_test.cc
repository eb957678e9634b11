// The callback routes (signed ack links) through the real ops server on loopback, with a
// bearer token configured that the requests never carry, on a real SQLite store.
#include "quell/adapters/http_server/callback_routes.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdlib.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../../app/fake_clock.h"
#include "quell/adapters/channels/pagerduty/pagerduty_channel.h"
#include "quell/adapters/channels/slack/slack_channel.h"
#include "quell/adapters/curl/curl_http_client.h"
#include "quell/adapters/http_server/ops_http_server.h"
#include "quell/adapters/jsonl/message_codec.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/adapters/sqlite/sqlite_incident_store.h"
#include "quell/app/poll_applier.h"
#include "quell/app/vector_observation_stream.h"
#include "quell/core/delivery/group_plan.h"
#include "quell/core/delivery/grouping.h"
#include "quell/core/redact/redact.h"
#include "webhook_receiver.h"

namespace quell::http_server {
namespace {

using std::chrono::hours;

constexpr const char* kSecret = "ack-link-secret-for-tests-0123456789";
constexpr const char* kPagerDutySecret = "pd-subscription-secret";
constexpr const char* kSlackSecret = "8f742231b10e8888abcd99yyyzzz85a5";

// Hex HMAC-SHA256 straight from OpenSSL, as a provider computes it (not quell's helper).
std::string Hmac(const std::string& key, const std::string& data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), mac, &length);
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    static constexpr char kHex[] = "0123456789abcdef";
    hex += kHex[mac[i] >> 4];
    hex += kHex[mac[i] & 0xF];
  }
  return hex;
}

// Slack's documented block_actions payload (docs.slack.dev, reference/interaction-payloads/
// block_actions-payload), a click on a button whose value is `value`, sent as Slack sends it:
// application/x-www-form-urlencoded with the JSON in the field `payload`. `response_url` stands
// in for Slack's hooks.slack.com/actions/... URL.
// `trigger_id` is unique per click; `message_ts` is when the clicked message was posted.
std::string SlackBody(const std::string& value, const std::string& response_url,
                      const std::string& trigger_id = "12466734323.1395872398",
                      const std::string& message_ts = "1548261231.000200") {
  const std::string payload =
      R"({"type":"block_actions","user":{"id":"U0CA5","username":"Amy McGee","name":"Amy McGee",)"
      R"("team_id":"T3MDE"},"api_app_id":"A0CA5","token":"Shh_its_a_seekrit",)"
      R"("container":{"type":"message","message_ts":")" +
      message_ts +
      R"(","channel_id":"C0CA5","is_ephemeral":false},)"
      R"("trigger_id":")" +
      trigger_id +
      R"(","team":{"id":"T0CAG","domain":"acme-creamery"},)"
      R"("enterprise":null,"is_enterprise_install":false,"state":{"values":{}},)"
      R"("response_url":")" +
      response_url +
      R"(",)"
      R"("actions":[{"type":"button","block_id":"quell_ack","action_id":"quell_ack",)"
      R"("text":{"type":"plain_text","text":"Acknowledge"},"value":")" +
      value + R"(","action_ts":"1548426417.840180"}]})";
  std::string encoded = "payload=";
  for (const char raw : payload) {
    const auto c = static_cast<unsigned char>(raw);
    if (std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.' || c == '~') {
      encoded += static_cast<char>(c);
    } else {
      static constexpr char kHex[] = "0123456789ABCDEF";
      encoded += '%';
      encoded += kHex[c >> 4];
      encoded += kHex[c & 0xF];
    }
  }
  return encoded;
}

// PagerDuty's documented v3 webhook payload (developer-docs, docs/webhooks/01-Overview.md,
// "Webhook Payload"), with the event type, incident_key, event id and time of the test's
// choosing.
std::string PagerDutyBody(const std::string& event_type, const std::string& incident_key,
                          const std::string& id, core::WallTime occurred_at) {
  return R"({
  "event": {
    "id": ")" +
         id + R"(",
    "event_type": ")" +
         event_type + R"(",
    "resource_type": "incident",
    "occurred_at": ")" +
         core::FormatRfc3339(occurred_at) + R"(",
    "agent": {
      "html_url": "https://acme.pagerduty.com/users/PLH1HKV",
      "id": "PLH1HKV",
      "self": "https://api.pagerduty.com/users/PLH1HKV",
      "summary": "Tenex Engineer",
      "type": "user_reference"
    },
    "client": {
      "name": "PagerDuty"
    },
    "data": {
      "id": "PGR0VU2",
      "type": "incident",
      "self": "https://api.pagerduty.com/incidents/PGR0VU2",
      "html_url": "https://acme.pagerduty.com/incidents/PGR0VU2",
      "number": 2,
      "status": "acknowledged",
      "incident_key": ")" +
         incident_key + R"(",
      "created_at": "2020-04-09T15:16:27Z",
      "title": "A little bump in the road",
      "service": {
        "html_url": "https://acme.pagerduty.com/services/PF9KMXH",
        "id": "PF9KMXH",
        "self": "https://api.pagerduty.com/services/PF9KMXH",
        "summary": "API Service",
        "type": "service_reference"
      },
      "urgency": "high",
      "resolve_reason": null
    }
  }
})";
}

class RecordingLog : public core::EventLog {
 public:
  struct Line {
    std::string event;
    std::map<std::string, std::string> fields;
  };
  void Log(core::LogLevel, std::string_view event,
           std::initializer_list<core::LogField> fields) override {
    const std::lock_guard<std::mutex> guard(mutex);
    Line line{std::string(event), {}};
    for (const core::LogField& f : fields) line.fields[std::string(f.name)] = std::string(f.value);
    lines.push_back(std::move(line));
  }
  std::vector<Line> Lines() {
    const std::lock_guard<std::mutex> guard(mutex);
    return lines;
  }
  std::mutex mutex;
  std::vector<Line> lines;
};

class NullSink : public app::DecisionSink {
 public:
  void OnDecision(const core::Observation&, const core::Decision&) override {}
  void Reset() override {}
};

class AckLinkRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/quell-callback-routes-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    auto store = sqlite::SqliteIncidentStore::Open(dir_ + "/quell.db");
    ASSERT_TRUE(store.ok()) << store.error().message;
    store_ = std::move(*store);
    commands_ = std::make_unique<app::OperatorCommands>(*store_, *store_, encoder_);
    signer_ =
        std::make_shared<channels::AckLinkSigner>(kSecret, "https://quell.example.com", hours(24));
    OpsServerOptions options;
    options.token = "operator-token";
    options.threads = 2;
    server_ = std::make_unique<OpsHttpServer>(
        options,
        CallbackRoutes(*commands_, clock_, log_,
                       CallbackSettings{.ack_links = signer_,
                                        .pagerduty_secrets = {"old-secret", kPagerDutySecret},
                                        .slack_signing_secrets = {kSlackSecret},
                                        .slack_responses = &http_}));
    auto port = server_->Start();
    ASSERT_TRUE(port.ok()) << port.error().message;
    client_ = std::make_unique<httplib::Client>("127.0.0.1", *port);
  }
  void TearDown() override {
    server_->Stop();
    std::filesystem::remove_all(dir_);
  }

  void Observe(const std::string& key, bool unhealthy, const std::string& tenant = "acme") {
    app::PollApplier applier(*store_, encoder_, apply_);
    core::Observation o;
    o.key = key;
    o.at = clock_.Now();
    o.health = unhealthy ? core::Health::kUnhealthy : core::Health::kHealthy;
    o.condition = "errs";
    o.labels = {{"tenant", tenant}};
    const std::vector<core::Observation> poll = {o};
    app::VectorObservationStream stream(poll);
    NullSink sink;
    ASSERT_TRUE(
        applier.Apply(stream, "p-" + core::FormatRfc3339(clock_.Now()), clock_.Now(), sink).ok());
  }

  core::Incident Load(const std::string& key) {
    auto all = commands_->ListIncidents(false);
    EXPECT_TRUE(all.ok());
    for (core::Incident& in : *all) {
      if (in.key == key) return in;
    }
    ADD_FAILURE() << "no incident " << key;
    return {};
  }

  // Transitions go to `channels`, each grouping by condition.
  void GroupOn(const std::vector<std::string>& channels) {
    apply_.channels = channels;
    for (const std::string& channel : channels) {
      apply_.grouping[channel] = core::GroupPolicy{.group_by = {"condition"}};
    }
  }

  // The group's next message on `channel`, due now, as the dispatcher hands it to the channel.
  core::Delivery GroupMessage(const std::string& channel, core::Duration interval = hours(0)) {
    auto row = store_->AssembleGroup(channel, "condition=errs", clock_.Now(),
                                     core::GroupPlannerFor(std::chrono::seconds(30), interval));
    EXPECT_TRUE(row.ok() && row->has_value()) << "no group message was due";
    core::Delivery delivery;
    if (!row.ok() || !row->has_value()) return delivery;
    delivery.row = **row;
    auto members = store_->GroupMembers(delivery.row.idempotency_key);
    EXPECT_TRUE(members.ok());
    delivery.row.payload = core::GroupPayload(delivery.row, *members);
    // Read once, as the dispatcher reads it: the channels take the group's episode from it.
    auto content = jsonl::DecodeMessage(delivery.row);
    EXPECT_TRUE(content.ok());
    if (content.ok()) delivery.content = std::move(*content);
    delivery.message = core::RenderedMessage{"errs", "group", "error"};
    return delivery;
  }

  // The dedup key PagerDuty gets with `message`, and so echoes back in its webhooks.
  static std::string PagerDutyKey(const core::Delivery& message) {
    channels::PagerDutySettings settings;
    settings.base_url = "http://127.0.0.1:9";
    settings.routing_key = "R0UT1NGKEY";
    auto channel = channels::PagerDutyChannel::Create(settings);
    EXPECT_TRUE(channel.ok());
    auto request = (*channel)->Encode(message, message.row.created_at);
    EXPECT_TRUE(request.ok()) << request.error().message;
    return nlohmann::json::parse(request->body)["dedup_key"];
  }

  // The value of the Acknowledge button Slack shows under `message`.
  static std::string SlackButton(const core::Delivery& message) {
    channels::SlackSettings settings;
    settings.webhook_url = "http://127.0.0.1:9/hook";
    settings.signing_secret = "slack-signing-secret";
    auto channel = channels::SlackChannel::Create(settings);
    EXPECT_TRUE(channel.ok());
    auto request = (*channel)->Encode(message, message.row.created_at);
    EXPECT_TRUE(request.ok()) << request.error().message;
    return nlohmann::json::parse(request->body)["blocks"].back()["elements"][0]["value"];
  }

  // A PagerDuty event that occurred now, with an id of its own.
  std::string PagerDutyEventNow(const std::string& event_type, const std::string& incident_key) {
    return PagerDutyBody(event_type, incident_key, "evt-" + std::to_string(++events_),
                         clock_.Now());
  }

  // A Slack click with a trigger id of its own, on a message posted at `posted`.
  std::string SlackClickOn(const std::string& value, core::WallTime posted) {
    const auto micros =
        std::chrono::duration_cast<std::chrono::microseconds>(posted.time_since_epoch()).count();
    char ts[32];
    std::snprintf(ts, sizeof ts, "%lld.%06lld", static_cast<long long>(micros / 1000000),
                  static_cast<long long>(micros % 1000000));
    return SlackBody(value, slack_responses_.Url(), "trig-" + std::to_string(++events_), ts);
  }

  // The store's counts: decisions, outbox rows per status, and `key`'s version.
  std::string Snapshot(const std::string& key) {
    auto decisions = store_->CountDecisions();
    auto outbox = store_->CountOutboxByStatus();
    EXPECT_TRUE(decisions.ok() && outbox.ok());
    std::string out = "decisions=" + std::to_string(*decisions);
    for (const auto& [status, n] : *outbox) out += " " + status + "=" + std::to_string(n);
    return out + " version=" + std::to_string(Load(key).version);
  }

  // The path of the link a message of `key`'s `generation` carries, issued now.
  std::string LinkPath(const std::string& key, uint64_t generation) {
    const std::string link = signer_->Link(key, generation, clock_.Now());
    const std::string base = "https://quell.example.com";
    EXPECT_EQ(link.substr(0, base.size()), base);
    return link.substr(base.size());
  }

  // The path of the one link a group message of `channel`'s group condition=errs carries for
  // `episode`, issued now.
  std::string GroupLinkPath(const std::string& channel, uint64_t episode) {
    const std::string link = signer_->GroupLink(channel, "condition=errs", episode, clock_.Now());
    const std::string base = "https://quell.example.com";
    EXPECT_EQ(link.substr(0, base.size()), base);
    return link.substr(base.size());
  }
  // The ack page's form posted with `name` typed in.
  httplib::Result PostName(const std::string& path, const std::string& name) {
    return client_->Post(path, "name=" + Encoded(name), "application/x-www-form-urlencoded");
  }
  static std::string Encoded(const std::string& text) {
    std::string out;
    for (const char raw : text) {
      const auto c = static_cast<unsigned char>(raw);
      if (std::isalnum(c) != 0) {
        out += static_cast<char>(c);
      } else if (c == ' ') {
        out += '+';  // as a browser encodes a form
      } else {
        static constexpr char kHex[] = "0123456789ABCDEF";
        out += '%';
        out += kHex[c >> 4];
        out += kHex[c & 0xF];
      }
    }
    return out;
  }

  httplib::Result Get(const std::string& path) { return client_->Get(path); }
  httplib::Result Post(const std::string& path) {
    return client_->Post(path, "", "application/x-www-form-urlencoded");
  }

  // A delivery signed as PagerDuty signs it while rotating: a stale signature, then ours.
  httplib::Result PostPagerDuty(const std::string& body, const std::string& secret) {
    httplib::Headers headers = {{"X-PagerDuty-Signature",
                                 "v1=" + Hmac("rotated-away", body) + ",v1=" + Hmac(secret, body)}};
    return client_->Post("/v1/pagerduty/webhook", headers, body, "application/json");
  }

  // A click as Slack signs it: v0= HMAC of "v0:<timestamp>:<body>", sent `age` ago.
  httplib::Result PostSlack(const std::string& body, const std::string& secret,
                            std::chrono::seconds age = std::chrono::seconds(3)) {
    const std::string ts = std::to_string(
        std::chrono::duration_cast<std::chrono::seconds>(clock_.Now().time_since_epoch() - age)
            .count());
    httplib::Headers headers = {
        {"X-Slack-Request-Timestamp", ts},
        {"X-Slack-Signature", "v0=" + Hmac(secret, "v0:" + ts + ":" + body)}};
    return client_->Post("/v1/slack/interactivity", headers, body,
                         "application/x-www-form-urlencoded");
  }

  // Whether any log line holds `text` in any field.
  bool Logged(const std::string& text) {
    for (const auto& line : log_.Lines()) {
      for (const auto& [name, value] : line.fields) {
        if (value.find(text) != std::string::npos) return true;
      }
    }
    return false;
  }

  std::string dir_;
  testing::FakeClock clock_{*core::ParseRfc3339("2026-12-02T09:00:00Z")};
  app::ApplyOptions apply_ = [] {
    app::ApplyOptions options;
    options.channels = {"webhook"};
    return options;
  }();
  uint64_t events_ = 0;
  jsonl::JsonPayloadEncoder encoder_;
  std::unique_ptr<sqlite::SqliteIncidentStore> store_;
  std::unique_ptr<app::OperatorCommands> commands_;
  std::shared_ptr<channels::AckLinkSigner> signer_;
  testing::WebhookReceiver slack_responses_{""};  // the clicks' response_url
  // After the receiver, so it goes first and closes its kept-alive connection to it.
  curl::CurlHttpClient http_;
  RecordingLog log_;
  std::unique_ptr<OpsHttpServer> server_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(AckLinkRoutesTest, GetShowsAConfirmationPageAndAcksNothing) {
  Observe("acme:db/<primary>", true);
  auto page = Get(LinkPath("acme:db/<primary>", 1));
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200) << page->body;
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(page->body.find("acme:db/&lt;primary&gt;"), std::string::npos) << page->body;
  EXPECT_NE(page->body.find("<form method=\"post\">"), std::string::npos) << page->body;
  EXPECT_FALSE(Load("acme:db/<primary>").acked_at.has_value());
}

// Issue 30: the ack pages lacked the operator page's security headers; the server adds them to
// every HTML answer. The token is in the link's URL, so no page may send it on as a Referer.
TEST_F(AckLinkRoutesTest, AckPagesCarryTheSecurityHeaders) {
  Observe("acme:db", true);
  auto ask = Get(LinkPath("acme:db", 1));
  auto acked = Post(LinkPath("acme:db", 1));
  auto forged = Get("/v1/ack/forged");
  for (const auto* page : {&ask, &acked, &forged}) {
    ASSERT_TRUE(*page);
    const httplib::Response& r = **page;
    EXPECT_EQ(r.get_header_value("Content-Type"), "text/html; charset=utf-8") << r.status;
    const std::string csp = r.get_header_value("Content-Security-Policy");
    EXPECT_NE(csp.find("default-src 'none'"), std::string::npos) << r.status << ": " << csp;
    EXPECT_NE(csp.find("form-action 'self'"), std::string::npos) << r.status << ": " << csp;
    EXPECT_EQ(r.get_header_value("Referrer-Policy"), "no-referrer") << r.status;
    EXPECT_EQ(r.get_header_value("X-Content-Type-Options"), "nosniff") << r.status;
    EXPECT_EQ(r.get_header_value("X-Frame-Options"), "DENY") << r.status;
  }
}

TEST_F(AckLinkRoutesTest, PostAcksTheIncidentByLinkWithoutTheBearerToken) {
  Observe("acme:db", true);
  clock_.Advance(std::chrono::minutes(5));
  auto acked = Post(LinkPath("acme:db", 1));
  ASSERT_TRUE(acked);
  EXPECT_EQ(acked->status, 200) << acked->body;
  EXPECT_NE(acked->body.find("is acknowledged (by link at 2026-12-02T09:05:00Z)"),
            std::string::npos)
      << acked->body;
  const core::Incident incident = Load("acme:db");
  ASSERT_TRUE(incident.acked_at.has_value());
  EXPECT_EQ(incident.acked_by, "link");
  ASSERT_FALSE(log_.Lines().empty());
  EXPECT_EQ(log_.Lines().back().fields["status"], "acked");
  // A second press keeps the first ack.
  auto again = Post(LinkPath("acme:db", 1));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 200);
}

TEST_F(AckLinkRoutesTest, ForgedLinksAreRefusedAndLoggedWithoutTheirMac) {
  Observe("acme:db", true);
  const std::string path = LinkPath("acme:db", 1);
  const std::string mac = path.substr(path.rfind('.') + 1);
  // Another key's link with this link's mac; a flipped mac digit; another secret's link.
  const std::string other = LinkPath("acme:other", 1);
  const std::string swapped = other.substr(0, other.rfind('.') + 1) + mac;
  std::string flipped = path;
  flipped.back() = flipped.back() == '0' ? '1' : '0';
  channels::AckLinkSigner stranger("another-secret-of-enough-length", "https://x", hours(24));
  const std::string foreign = "/v1/ack/" + stranger.Token("acme:db", 1, clock_.Now() + hours(1));
  for (const std::string& forged : {swapped, flipped, foreign}) {
    for (bool post : {false, true}) {
      auto refused = post ? Post(forged) : Get(forged);
      ASSERT_TRUE(refused);
      EXPECT_EQ(refused->status, 403) << forged << " " << refused->body;
      EXPECT_NE(refused->body.find("signature is not valid"), std::string::npos);
    }
  }
  EXPECT_FALSE(Load("acme:db").acked_at.has_value());
  EXPECT_EQ(log_.Lines().size(), 6u);
  EXPECT_EQ(log_.Lines().front().fields["status"], "refused");
  EXPECT_FALSE(Logged(mac));
  EXPECT_FALSE(Logged(flipped.substr(flipped.rfind('.') + 1)));

  auto malformed = Post("/v1/ack/v1.1.notanumber.YWNtZTpkYg.0123");
  ASSERT_TRUE(malformed);
  EXPECT_EQ(malformed->status, 400) << malformed->body;
}

TEST_F(AckLinkRoutesTest, ExpiredLinksAreRefused) {
  Observe("acme:db", true);
  const std::string path = LinkPath("acme:db", 1);
  clock_.Advance(hours(24));
  auto get = Get(path);
  auto post = Post(path);
  ASSERT_TRUE(get && post);
  EXPECT_EQ(get->status, 410) << get->body;
  EXPECT_EQ(post->status, 410) << post->body;
  EXPECT_NE(post->body.find("expired at 2026-12-03T09:00:00Z"), std::string::npos) << post->body;
  EXPECT_FALSE(Load("acme:db").acked_at.has_value());
  EXPECT_EQ(log_.Lines().size(), 2u);
}

TEST_F(AckLinkRoutesTest, ALinkReplayedAfterTheResolveOrForAnEarlierGenerationIsRefused) {
  Observe("acme:db", true);
  const std::string first = LinkPath("acme:db", 1);
  ASSERT_TRUE(commands_->Resolve("acme:db", "alice", clock_.Now()).ok());
  auto after_resolve = Post(first);
  ASSERT_TRUE(after_resolve);
  EXPECT_EQ(after_resolve->status, 409) << after_resolve->body;
  EXPECT_NE(after_resolve->body.find("not open"), std::string::npos) << after_resolve->body;

  clock_.Advance(std::chrono::minutes(1));
  Observe("acme:db", false);
  clock_.Advance(std::chrono::minutes(1));
  Observe("acme:db", true);
  ASSERT_EQ(Load("acme:db").generation, 2u);
  auto old_generation = Post(first);
  ASSERT_TRUE(old_generation);
  EXPECT_EQ(old_generation->status, 409) << old_generation->body;
  EXPECT_NE(old_generation->body.find("generation 2, not 1"), std::string::npos)
      << old_generation->body;
  EXPECT_FALSE(Load("acme:db").acked_at.has_value());
  EXPECT_EQ(log_.Lines().back().fields["status"], "refused");

  auto unknown = Post(LinkPath("acme:nobody", 1));
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404) << unknown->body;
}

using PagerDutyWebhookTest = AckLinkRoutesTest;

TEST_F(PagerDutyWebhookTest, AnAckInPagerDutyAcksTheIncidentItsDedupKeyNames) {
  Observe("acme:db", true);
  auto answer =
      PostPagerDuty(PagerDutyEventNow("incident.acknowledged", "acme:db:1"), kPagerDutySecret);
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 200) << answer->body;
  const core::Incident incident = Load("acme:db");
  ASSERT_TRUE(incident.acked_at.has_value());
  EXPECT_EQ(incident.acked_by, "pagerduty:Tenex Engineer");
  EXPECT_EQ(log_.Lines().back().fields["status"], "acked");
}

TEST_F(PagerDutyWebhookTest, AResolveInPagerDutyResolvesTheIncident) {
  Observe("acme:db", true);
  auto answer =
      PostPagerDuty(PagerDutyEventNow("incident.resolved", "acme:db:1"), kPagerDutySecret);
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 200) << answer->body;
  EXPECT_EQ(Load("acme:db").status, core::IncidentStatus::kResolved);
}

TEST_F(PagerDutyWebhookTest, AGroupsAckAcksTheMembersItsAlertCarriedOnly) {
  GroupOn({"pd"});
  Observe("acme:db", true);
  Observe("acme:cache", true);
  clock_.Advance(std::chrono::seconds(30));
  const std::string key = PagerDutyKey(GroupMessage("pd"));
  EXPECT_EQ(key, "{group:pd:1}:condition=errs");
  Observe("acme:late", true);  // waits for the next message: PagerDuty never heard of it
  auto answer = PostPagerDuty(PagerDutyEventNow("incident.acknowledged", key), kPagerDutySecret);
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 200) << answer->body;
  EXPECT_NE(answer->body.find(R"("keys":["acme:cache","acme:db"])"), std::string::npos)
      << answer->body;
  EXPECT_TRUE(Load("acme:db").acked_at.has_value());
  EXPECT_TRUE(Load("acme:cache").acked_at.has_value());
  EXPECT_FALSE(Load("acme:late").acked_at.has_value());
}

// The issue's attack: one signed incident.resolved for a group's alert, sent again after
// another incident opened in the group and joined the alert. The replay (same id) and any
// other event that occurred before that incident opened leave it alone; an event that occurs
// later still reaches it through the same key.
TEST_F(PagerDutyWebhookTest, AReplayedGroupResolveLeavesAnIncidentThatOpenedLaterAlone) {
  GroupOn({"pd"});
  Observe("early:ga", true);
  clock_.Advance(std::chrono::seconds(30));
  const std::string key = PagerDutyKey(GroupMessage("pd"));
  clock_.Advance(std::chrono::minutes(2));
  const std::string resolve = PagerDutyEventNow("incident.resolved", key);
  const std::string ack_sent_then = PagerDutyEventNow("incident.acknowledged", key);
  auto first = PostPagerDuty(resolve, kPagerDutySecret);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 200) << first->body;
  EXPECT_EQ(Load("early:ga").status, core::IncidentStatus::kResolved);

  clock_.Advance(std::chrono::minutes(10));
  Observe("later:gb", true);
  clock_.Advance(std::chrono::seconds(30));
  GroupMessage("pd");  // takes later:gb into the group's alert
  clock_.Advance(std::chrono::minutes(1));
  const std::string before = Snapshot("later:gb");
  auto replayed = PostPagerDuty(resolve, kPagerDutySecret);
  ASSERT_TRUE(replayed);
  EXPECT_EQ(replayed->status, 200) << replayed->body;
  EXPECT_NE(replayed->body.find(R"("duplicate":true)"), std::string::npos) << replayed->body;
  EXPECT_EQ(log_.Lines().back().fields["status"], "duplicate");
  // Another event of that time (a late delivery of PagerDuty's) does not reach it either.
  auto late = PostPagerDuty(ack_sent_then, kPagerDutySecret);
  ASSERT_TRUE(late);
  EXPECT_EQ(late->status, 200) << late->body;
  EXPECT_NE(late->body.find(R"("keys":[])"), std::string::npos) << late->body;
  EXPECT_EQ(Load("later:gb").status, core::IncidentStatus::kOpen);
  EXPECT_FALSE(Load("later:gb").acked_at.has_value());
  EXPECT_EQ(Snapshot("later:gb"), before);

  auto now = PostPagerDuty(PagerDutyEventNow("incident.acknowledged", key), kPagerDutySecret);
  ASSERT_TRUE(now);
  EXPECT_NE(now->body.find(R"("keys":["later:gb"])"), std::string::npos) << now->body;
}

// PagerDuty delivers at least once: a second delivery of one event (same id) answers 200 and
// changes nothing, even when something it could act on appeared in between.
TEST_F(PagerDutyWebhookTest, TheSameEventTwiceIs200AndChangesNothingTheSecondTime) {
  GroupOn({"pd"});
  Observe("acme:a", true);
  clock_.Advance(std::chrono::seconds(30));
  const std::string key = PagerDutyKey(GroupMessage("pd"));
  clock_.Advance(std::chrono::seconds(30));
  const std::string ack = PagerDutyEventNow("incident.acknowledged", key);
  auto first = PostPagerDuty(ack, kPagerDutySecret);
  ASSERT_TRUE(first);
  EXPECT_NE(first->body.find(R"("keys":["acme:a"])"), std::string::npos) << first->body;
  // acme:b opens and joins the alert within the clock grace of the event's time.
  clock_.Advance(std::chrono::seconds(5));
  Observe("acme:b", true);
  clock_.Advance(std::chrono::seconds(30));
  GroupMessage("pd", std::chrono::seconds(10));
  const std::string before = Snapshot("acme:b");
  auto second = PostPagerDuty(ack, kPagerDutySecret);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->status, 200) << second->body;
  EXPECT_NE(second->body.find(R"("duplicate":true)"), std::string::npos) << second->body;
  EXPECT_FALSE(Load("acme:b").acked_at.has_value());
  EXPECT_EQ(Snapshot("acme:b"), before);
}

TEST_F(PagerDutyWebhookTest, EventsPastPagerDutysRetriesOrWithoutIdOrTimeChangeNothing) {
  Observe("acme:db", true);
  clock_.Advance(std::chrono::hours(60));
  auto stale = PostPagerDuty(
      PagerDutyBody("incident.acknowledged", "acme:db:1", "evt-old", clock_.Now() - hours(50)),
      kPagerDutySecret);
  ASSERT_TRUE(stale);
  EXPECT_EQ(stale->status, 200) << stale->body;
  EXPECT_EQ(log_.Lines().back().fields["status"], "stale");
  auto no_id = PostPagerDuty(PagerDutyBody("incident.acknowledged", "acme:db:1", "", clock_.Now()),
                             kPagerDutySecret);
  ASSERT_TRUE(no_id);
  EXPECT_EQ(no_id->status, 400) << no_id->body;
  std::string no_time = PagerDutyEventNow("incident.acknowledged", "acme:db:1");
  no_time.replace(no_time.find("\"occurred_at\""), 13, "\"occurred_on\"");
  auto untimed = PostPagerDuty(no_time, kPagerDutySecret);
  ASSERT_TRUE(untimed);
  EXPECT_EQ(untimed->status, 400) << untimed->body;
  EXPECT_FALSE(Load("acme:db").acked_at.has_value());
}

TEST_F(PagerDutyWebhookTest, BadOrMissingSignaturesAre401AndChangeNothing) {
  Observe("acme:db", true);
  const std::string body = PagerDutyEventNow("incident.acknowledged", "acme:db:1");
  auto wrong = PostPagerDuty(body, "not-the-secret");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401) << wrong->body;
  // A valid signature over another body (the key changed in flight).
  httplib::Headers altered = {{"X-PagerDuty-Signature", "v1=" + Hmac(kPagerDutySecret, body)}};
  auto tampered =
      client_->Post("/v1/pagerduty/webhook", altered,
                    PagerDutyEventNow("incident.acknowledged", "acme:db:2"), "application/json");
  ASSERT_TRUE(tampered);
  EXPECT_EQ(tampered->status, 401);
  auto unsigned_post = client_->Post("/v1/pagerduty/webhook", body, "application/json");
  ASSERT_TRUE(unsigned_post);
  EXPECT_EQ(unsigned_post->status, 401);
  EXPECT_NE(unsigned_post->body.find("X-PagerDuty-Signature is missing"), std::string::npos);
  EXPECT_FALSE(Load("acme:db").acked_at.has_value());
  ASSERT_EQ(log_.Lines().size(), 3u);
  EXPECT_EQ(log_.Lines()[0].fields["status"], "refused");
  EXPECT_FALSE(Logged(Hmac(kPagerDutySecret, body)));
}

TEST_F(PagerDutyWebhookTest, UnknownKeysEarlierGenerationsAndOtherEventsAre200AndDoNothing) {
  Observe("acme:db", true);
  for (const char* key : {"not-quells-alert", "acme:nobody:1", "acme:db:7"}) {
    auto answer = PostPagerDuty(PagerDutyEventNow("incident.acknowledged", key), kPagerDutySecret);
    ASSERT_TRUE(answer);
    EXPECT_EQ(answer->status, 200) << key << " " << answer->body;
    EXPECT_EQ(log_.Lines().back().fields["status"], "unknown") << key;
  }
  auto other =
      PostPagerDuty(PagerDutyEventNow("incident.priority_updated", "acme:db:1"), kPagerDutySecret);
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 200);
  EXPECT_EQ(log_.Lines().back().fields["status"], "ignored");
  EXPECT_FALSE(Load("acme:db").acked_at.has_value());
}

using SlackInteractivityTest = AckLinkRoutesTest;

TEST_F(SlackInteractivityTest, AnAcknowledgeClickAcksTheIncidentByTheSlackUser) {
  Observe("acme:db", true);
  auto answer = PostSlack(SlackClickOn("acme:db:1", clock_.Now()), kSlackSecret);
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 200) << answer->body;
  EXPECT_NE(answer->body.find("Acknowledged by slack:Amy McGee"), std::string::npos)
      << answer->body;
  const core::Incident incident = Load("acme:db");
  ASSERT_TRUE(incident.acked_at.has_value());
  EXPECT_EQ(incident.acked_by, "slack:Amy McGee");
}

// Slack shows the clicker nothing of the answer to a block_actions request: that answer only
// acknowledges receipt. A message in reply goes to the payload's response_url, as JSON with
// response_type and replace_original (docs.slack.dev/interactivity/handling-user-interaction,
// "Message responses"; the body of the acknowledgement is not a message for block_actions,
// github.com/slackapi/bolt-js/issues/132).
TEST_F(SlackInteractivityTest, TheAnswerToTheClickerGoesToTheResponseUrl) {
  Observe("acme:db", true);
  auto answer = PostSlack(SlackClickOn("acme:db:1", clock_.Now()), kSlackSecret);
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 200) << answer->body;
  std::vector<testing::ReceivedRequest> posted = slack_responses_.Requests();
  ASSERT_EQ(posted.size(), 1u);
  EXPECT_EQ(posted[0].method, "POST");
  EXPECT_EQ(core::FindHeader(posted[0].headers, "Content-Type"), "application/json");
  const nlohmann::json message = nlohmann::json::parse(posted[0].body);
  EXPECT_EQ(message["response_type"], "ephemeral");
  EXPECT_EQ(message["replace_original"], false);
  EXPECT_EQ(message["text"], "Acknowledged by slack:Amy McGee");

  // A click for an incident that is not open: the clicker is told why nothing was acked.
  answer = PostSlack(SlackClickOn("acme:gone:1", clock_.Now()), kSlackSecret);
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 200);
  posted = slack_responses_.Requests();
  ASSERT_EQ(posted.size(), 2u);
  EXPECT_EQ(nlohmann::json::parse(posted[1].body)["text"].get<std::string>().rfind(
                "Not acknowledged: ", 0),
            0u)
      << posted[1].body;
  // The response_url is a credential for that message: never logged.
  EXPECT_FALSE(Logged(slack_responses_.Url()));
}

TEST_F(SlackInteractivityTest, AResponseUrlThatFailsIsLoggedAndTheAckStands) {
  Observe("acme:db", true);
  slack_responses_.FailNext(testing::Fault::kStatus500);
  auto answer = PostSlack(SlackClickOn("acme:db:1", clock_.Now()), kSlackSecret);
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 200) << answer->body;
  EXPECT_TRUE(Load("acme:db").acked_at.has_value());
  EXPECT_EQ(log_.Lines().back().fields["status"], "response_failed");
  EXPECT_NE(log_.Lines().back().fields["error"].find("500"), std::string::npos);
}

TEST_F(SlackInteractivityTest, BadSignaturesAndStaleTimestampsAre401AndChangeNothing) {
  Observe("acme:db", true);
  const std::string body = SlackClickOn("acme:db:1", clock_.Now());
  auto wrong = PostSlack(body, "another-apps-signing-secret");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401) << wrong->body;
  auto stale = PostSlack(body, kSlackSecret, std::chrono::minutes(6));
  ASSERT_TRUE(stale);
  EXPECT_EQ(stale->status, 401) << stale->body;
  EXPECT_NE(stale->body.find("more than 5 minutes"), std::string::npos) << stale->body;
  auto from_the_future = PostSlack(body, kSlackSecret, -std::chrono::minutes(6));
  ASSERT_TRUE(from_the_future);
  EXPECT_EQ(from_the_future->status, 401);
  auto unsigned_post =
      client_->Post("/v1/slack/interactivity", body, "application/x-www-form-urlencoded");
  ASSERT_TRUE(unsigned_post);
  EXPECT_EQ(unsigned_post->status, 401);
  EXPECT_FALSE(Load("acme:db").acked_at.has_value());
  ASSERT_EQ(log_.Lines().size(), 4u);
  EXPECT_EQ(log_.Lines()[0].fields["status"], "refused");
  // Within the window (four minutes old) it goes through.
  auto late_but_fine = PostSlack(body, kSlackSecret, std::chrono::minutes(4));
  ASSERT_TRUE(late_but_fine);
  EXPECT_EQ(late_but_fine->status, 200);
  EXPECT_TRUE(Load("acme:db").acked_at.has_value());
}

// A group message's button acks what its episode carried up to that message, still open: not
// an incident that opened later, not the new generation of one it carried. A click delivered
// twice acks once.
TEST_F(SlackInteractivityTest, AClickOnAnOlderMessageAcksNoLaterGeneration) {
  GroupOn({"slack"});
  Observe("acme:a", true);
  clock_.Advance(std::chrono::seconds(30));
  const core::Delivery first = GroupMessage("slack");
  const std::string first_button = SlackButton(first);
  EXPECT_EQ(first_button, "{group:slack:1}:condition=errs");
  clock_.Advance(std::chrono::minutes(1));
  ASSERT_TRUE(commands_->Resolve("acme:a", "alice", clock_.Now()).ok());
  clock_.Advance(std::chrono::minutes(1));
  Observe("acme:a", false);
  clock_.Advance(std::chrono::minutes(1));
  Observe("acme:a", true);  // generation 2
  Observe("acme:b", true);
  ASSERT_EQ(Load("acme:a").generation, 2u);
  clock_.Advance(std::chrono::minutes(5));
  const core::Delivery second = GroupMessage("slack");

  auto old_click = PostSlack(SlackClickOn(first_button, first.row.created_at), kSlackSecret);
  ASSERT_TRUE(old_click);
  EXPECT_EQ(old_click->status, 200) << old_click->body;
  EXPECT_NE(old_click->body.find("Not acknowledged"), std::string::npos) << old_click->body;
  EXPECT_FALSE(Load("acme:a").acked_at.has_value());
  EXPECT_FALSE(Load("acme:b").acked_at.has_value());
  // The message of an incident's first generation does not ack its second either.
  auto old_generation = PostSlack(SlackClickOn("acme:a:1", first.row.created_at), kSlackSecret);
  ASSERT_TRUE(old_generation);
  EXPECT_FALSE(Load("acme:a").acked_at.has_value());

  const std::string click = SlackClickOn(SlackButton(second), second.row.created_at);
  auto new_click = PostSlack(click, kSlackSecret);
  ASSERT_TRUE(new_click);
  EXPECT_NE(new_click->body.find("Acknowledged by slack:Amy McGee"), std::string::npos)
      << new_click->body;
  EXPECT_TRUE(Load("acme:a").acked_at.has_value());
  EXPECT_TRUE(Load("acme:b").acked_at.has_value());
  const size_t answered = slack_responses_.Requests().size();
  auto again = PostSlack(click, kSlackSecret);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 200);
  EXPECT_NE(again->body.find("handled already"), std::string::npos) << again->body;
  EXPECT_EQ(slack_responses_.Requests().size(), answered);
}

// Issue 31: one link for the whole group. Its page lists the members open now and asks for a
// name; the POST acks every member of the episode open at that moment (the later message's
// member too), records the name on each, and leaves alone an incident no message carried.
TEST_F(AckLinkRoutesTest, AGroupsLinkAcksEveryOpenMemberOfItsEpisodeByTheNameGiven) {
  GroupOn({"hook"});
  Observe("acme:a", true);
  Observe("acme:b", true);
  clock_.Advance(std::chrono::seconds(30));
  GroupMessage("hook");
  const std::string path = GroupLinkPath("hook", 1);
  Observe("acme:c", true);
  clock_.Advance(std::chrono::seconds(30));
  GroupMessage("hook");           // carries c, in the same episode
  Observe("acme:waiting", true);  // no message carried it yet

  auto ask = Get(path);
  ASSERT_TRUE(ask);
  EXPECT_EQ(ask->status, 200) << ask->body;
  EXPECT_NE(ask->body.find("3 incidents of group <code>condition=errs</code> on <code>hook"),
            std::string::npos)
      << ask->body;
  for (const char* key : {"acme:a", "acme:b", "acme:c"}) {
    EXPECT_NE(ask->body.find(std::string("<code>") + key + "</code>"), std::string::npos) << key;
  }
  EXPECT_EQ(ask->body.find("acme:waiting"), std::string::npos) << ask->body;
  EXPECT_NE(ask->body.find("<input id=\"name\" name=\"name\""), std::string::npos) << ask->body;
  EXPECT_NE(ask->body.find("records only <code>link</code>"), std::string::npos) << ask->body;
  EXPECT_NE(ask->body.find("href=\"/groups/hook/condition%3Derrs\""), std::string::npos)
      << ask->body;
  EXPECT_FALSE(Load("acme:a").acked_at.has_value()) << "a GET acks nothing";

  clock_.Advance(std::chrono::minutes(2));
  auto acked = PostName(path, "Ana Lima");
  ASSERT_TRUE(acked);
  EXPECT_EQ(acked->status, 200) << acked->body;
  EXPECT_NE(acked->body.find("3 incidents of group"), std::string::npos) << acked->body;
  EXPECT_NE(acked->body.find("by link:Ana Lima"), std::string::npos) << acked->body;
  for (const char* key : {"acme:a", "acme:b", "acme:c"}) {
    const core::Incident incident = Load(key);
    ASSERT_TRUE(incident.acked_at.has_value()) << key;
    EXPECT_EQ(*incident.acked_at, clock_.Now()) << key;
    EXPECT_EQ(incident.acked_by, "link:Ana Lima") << key;
  }
  EXPECT_FALSE(Load("acme:waiting").acked_at.has_value());
  const auto line = log_.Lines().back();
  EXPECT_EQ(line.fields.at("status"), "acked");
  EXPECT_EQ(line.fields.at("keys"), "3");
  EXPECT_EQ(line.fields.at("who"), "link:Ana Lima");

  // A second press keeps the first ack; with no name the ack would record "link" alone.
  auto again = PostName(path, "");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 200) << again->body;
  EXPECT_EQ(Load("acme:a").acked_by, "link:Ana Lima");
}

// The link names its episode: once a message left nothing open the episode ended, and the link
// acks nothing of the next one, whose incidents opened after it. Another channel's group of the
// same key is not this link's either.
TEST_F(AckLinkRoutesTest, AGroupsLinkActsOnItsOwnEpisodeAndChannelOnly) {
  GroupOn({"hook"});
  Observe("acme:a", true);
  clock_.Advance(std::chrono::seconds(30));
  GroupMessage("hook");
  const std::string path = GroupLinkPath("hook", 1);
  const std::string other_channel = GroupLinkPath("other", 1);
  for (int poll = 0; poll < 10 && Load("acme:a").status == core::IncidentStatus::kOpen; ++poll) {
    clock_.Advance(std::chrono::seconds(10));
    Observe("acme:a", false);
  }
  ASSERT_EQ(Load("acme:a").status, core::IncidentStatus::kResolved);
  clock_.Advance(std::chrono::seconds(30));
  GroupMessage("hook");  // its resolve: nothing left open, the episode ends
  Observe("acme:b", true);
  clock_.Advance(std::chrono::seconds(30));
  GroupMessage("hook");  // episode 3

  for (const std::string& link : {path, other_channel}) {
    auto ask = Get(link);
    ASSERT_TRUE(ask);
    EXPECT_EQ(ask->status, 409) << ask->body;
    auto post = PostName(link, "Ana");
    ASSERT_TRUE(post);
    EXPECT_EQ(post->status, 409) << post->body;
    EXPECT_NE(post->body.find("Not acknowledged"), std::string::npos) << post->body;
  }
  EXPECT_FALSE(Load("acme:b").acked_at.has_value());
  EXPECT_EQ(log_.Lines().back().fields["status"], "refused");
  // The next episode's own link acks it.
  auto acked = PostName(GroupLinkPath("hook", 3), "Ana");
  ASSERT_TRUE(acked);
  EXPECT_EQ(acked->status, 200) << acked->body;
  EXPECT_EQ(Load("acme:b").acked_by, "link:Ana");
}

TEST_F(AckLinkRoutesTest, AGroupsAckPagesCarryTheSecurityHeaders) {
  GroupOn({"hook"});
  Observe("acme:a", true);
  clock_.Advance(std::chrono::seconds(30));
  GroupMessage("hook");
  auto ask = Get(GroupLinkPath("hook", 1));
  auto acked = PostName(GroupLinkPath("hook", 1), "<script>alert(1)</script>");
  auto none = Get(GroupLinkPath("hook", 7));
  for (const auto* page : {&ask, &acked, &none}) {
    ASSERT_TRUE(*page);
    const httplib::Response& r = **page;
    EXPECT_EQ(r.get_header_value("Content-Type"), "text/html; charset=utf-8") << r.status;
    const std::string csp = r.get_header_value("Content-Security-Policy");
    EXPECT_NE(csp.find("default-src 'none'"), std::string::npos) << r.status << ": " << csp;
    EXPECT_NE(csp.find("form-action 'self'"), std::string::npos) << r.status << ": " << csp;
    EXPECT_EQ(r.get_header_value("Referrer-Policy"), "no-referrer") << r.status;
    EXPECT_EQ(r.get_header_value("X-Frame-Options"), "DENY") << r.status;
    EXPECT_EQ(r.get_header_value("Cache-Control"), "no-store") << r.status;
    EXPECT_EQ(r.body.find("<script>"), std::string::npos) << r.body;
  }
  EXPECT_NE(acked->body.find("link:&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos)
      << acked->body;
}

// A name typed on an incident's ack page is what the ack records, one line, redacted and cut;
// left empty, "link".
TEST_F(AckLinkRoutesTest, AnIncidentsLinkRecordsTheNameTypedOnItsPage) {
  Observe("acme:db", true);
  Observe("acme:cache", true);
  Observe("acme:queue", true);
  auto named = PostName(LinkPath("acme:db", 1), "  Ana\r\nLima  ");
  ASSERT_TRUE(named);
  EXPECT_EQ(named->status, 200) << named->body;
  EXPECT_EQ(Load("acme:db").acked_by, "link:Ana Lima");
  ASSERT_TRUE(PostName(LinkPath("acme:cache", 1), "ana@example.com " + std::string(200, 'x')));
  const std::string redacted = Load("acme:cache").acked_by;
  EXPECT_EQ(redacted.find("ana@example.com"), std::string::npos) << redacted;
  EXPECT_LE(redacted.size(), std::string("link:").size() + core::kMaxActorName) << redacted;
  ASSERT_TRUE(PostName(LinkPath("acme:queue", 1), ""));
  EXPECT_EQ(Load("acme:queue").acked_by, "link");
}

// Issue 31: a click on a group message acked only what that message carried, so members an
// earlier message of the same outage opened stayed unacked. The button now names the episode:
// every member its messages carried up to the clicked one, still open, by the Slack user.
TEST_F(SlackInteractivityTest, AGroupButtonAcksEveryOpenMemberOfItsEpisodeByTheSlackUser) {
  GroupOn({"slack"});
  Observe("acme:a", true);
  clock_.Advance(std::chrono::seconds(30));
  GroupMessage("slack");
  Observe("acme:b", true);
  clock_.Advance(std::chrono::seconds(30));
  const core::Delivery second = GroupMessage("slack");  // carries b only
  Observe("acme:later", true);
  clock_.Advance(std::chrono::minutes(2));
  GroupMessage("slack");  // carries later, posted after the click's message

  auto click = PostSlack(SlackClickOn(SlackButton(second), second.row.created_at), kSlackSecret);
  ASSERT_TRUE(click);
  EXPECT_EQ(click->status, 200) << click->body;
  for (const char* key : {"acme:a", "acme:b"}) {
    const core::Incident incident = Load(key);
    ASSERT_TRUE(incident.acked_at.has_value()) << key;
    EXPECT_EQ(incident.acked_by, "slack:Amy McGee") << key;
  }
  EXPECT_FALSE(Load("acme:later").acked_at.has_value()) << "posted after the clicked message";
}

// PagerDuty's v3 webhook names who acted in `agent` (a user_reference: summary, id): its
// summary, else its id, one line, redacted and cut, on every member of the group's alert.
TEST_F(PagerDutyWebhookTest, AGroupsAckRecordsTheAgentOnEveryMember) {
  GroupOn({"pd"});
  Observe("acme:db", true);
  Observe("acme:cache", true);
  clock_.Advance(std::chrono::seconds(30));
  const std::string key = PagerDutyKey(GroupMessage("pd"));
  auto answer = PostPagerDuty(PagerDutyEventNow("incident.acknowledged", key), kPagerDutySecret);
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 200) << answer->body;
  EXPECT_EQ(Load("acme:db").acked_by, "pagerduty:Tenex Engineer");
  EXPECT_EQ(Load("acme:cache").acked_by, "pagerduty:Tenex Engineer");

  Observe("acme:x", true);
  Observe("acme:y", true);
  std::string no_summary = PagerDutyEventNow("incident.acknowledged", "acme:x:1");
  const std::string summary = "\"summary\": \"Tenex Engineer\"";
  no_summary.replace(no_summary.find(summary), summary.size(), "\"summary\": \"\"");
  ASSERT_TRUE(PostPagerDuty(no_summary, kPagerDutySecret));
  EXPECT_EQ(Load("acme:x").acked_by, "pagerduty:PLH1HKV");
  std::string crafted = PagerDutyEventNow("incident.acknowledged", "acme:y:1");
  crafted.replace(crafted.find("Tenex Engineer"), 14,
                  "Eve\\n{\\\"event\\\":\\\"forged\\\"} eve@example.com");
  ASSERT_TRUE(PostPagerDuty(crafted, kPagerDutySecret));
  const std::string by = Load("acme:y").acked_by;
  EXPECT_EQ(by.find('\n'), std::string::npos) << by;
  EXPECT_EQ(by.find("eve@example.com"), std::string::npos) << by;
  EXPECT_EQ(by.rfind("pagerduty:Eve ", 0), 0u) << by;
}

}  // namespace
}  // namespace quell::http_server
