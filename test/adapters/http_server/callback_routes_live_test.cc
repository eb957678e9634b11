// The callback routes over settings that a reload replaces, called as the server calls them: a
// route exists whatever the settings hold, answers 404 while its kind is not configured, and
// checks each request against the settings of that moment.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "../../app/fake_clock.h"
#include "quell/adapters/http_server/callback_routes.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/adapters/sqlite/sqlite_incident_store.h"
#include "quell/app/latest.h"

namespace quell::http_server {
namespace callback_routes_live_test {

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

CallbackSettings PagerDutyOnly(const std::string& secret) {
  CallbackSettings settings;
  settings.pagerduty_secrets = {secret};
  return settings;
}

class NullLog : public core::EventLog {
 public:
  void Log(core::LogLevel, std::string_view, std::initializer_list<core::LogField>) override {}
};

class LiveCallbackRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/quell-callback-live-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    auto store = sqlite::SqliteIncidentStore::Open(dir_ + "/quell.db");
    ASSERT_TRUE(store.ok()) << store.error().message;
    store_ = std::move(*store);
    commands_ = std::make_unique<app::OperatorCommands>(*store_, *store_, encoder_);
    routes_ = CallbackRoutes(*commands_, clock_, log_, [this] { return settings_.Get(); });
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // The PagerDuty route's answer to a ping signed with `secret`.
  int PagerDutyPing(const std::string& secret) {
    for (const app::OpsRoute& route : routes_) {
      if (route.pattern != "^/v1/pagerduty/webhook$") continue;
      app::OpsRequest request;
      request.method = "POST";
      request.path = "/v1/pagerduty/webhook";
      request.body = R"({"event":{"event_type":"pagey.ping"}})";
      request.headers["x-pagerduty-signature"] = "v1=" + Hmac(secret, request.body);
      return route.handler(request).status;
    }
    return -1;
  }

  std::string dir_;
  testing::FakeClock clock_{*core::ParseRfc3339("2026-12-02T09:00:00Z")};
  NullLog log_;
  jsonl::JsonPayloadEncoder encoder_;
  std::unique_ptr<sqlite::SqliteIncidentStore> store_;
  std::unique_ptr<app::OperatorCommands> commands_;
  app::Latest<CallbackSettings> settings_;
  std::vector<app::OpsRoute> routes_;
};

TEST_F(LiveCallbackRoutesTest, EveryRouteExistsAndAnswers404UntilItsKindIsConfigured) {
  std::vector<std::string> patterns;
  for (const app::OpsRoute& route : routes_) {
    EXPECT_TRUE(route.is_public) << route.pattern;
    patterns.push_back(route.method + " " + route.pattern);
  }
  EXPECT_EQ(patterns, (std::vector<std::string>{"GET ^/v1/ack/(.+)$", "POST ^/v1/ack/(.+)$",
                                                "POST ^/v1/pagerduty/webhook$",
                                                "POST ^/v1/slack/interactivity$"}));
  for (const app::OpsRoute& route : routes_) {
    app::OpsRequest request;
    request.method = route.method;
    request.captures = {"v1.1.2.a2V5.0123"};
    const app::OpsResponse answer = route.handler(request);
    EXPECT_EQ(answer.status, 404) << route.pattern;
    EXPECT_NE(answer.body.find("not configured"), std::string::npos) << answer.body;
  }
}

TEST_F(LiveCallbackRoutesTest, ARotatedSecretIsRefusedFromTheNextRequestOn) {
  settings_.Set(PagerDutyOnly("pd-secret-one"));
  EXPECT_EQ(PagerDutyPing("pd-secret-one"), 200);
  EXPECT_EQ(PagerDutyPing("pd-secret-two"), 401);
  settings_.Set(PagerDutyOnly("pd-secret-two"));
  EXPECT_EQ(PagerDutyPing("pd-secret-one"), 401);
  EXPECT_EQ(PagerDutyPing("pd-secret-two"), 200);
  settings_.Set(CallbackSettings{});
  EXPECT_EQ(PagerDutyPing("pd-secret-two"), 404);
}

}  // namespace callback_routes_live_test
}  // namespace quell::http_server
