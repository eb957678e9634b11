// OpsgenieChannel through CurlMultiClient against the loopback OpsgenieReceiver.
#include "quell/adapters/channels/opsgenie/opsgenie_channel.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "channel_test_support.h"
#include "opsgenie_receiver.h"
#include "quell/core/delivery/grouping.h"

namespace quell::channels {
namespace {

using core::SendOutcome;
using core::TransitionKind;
using nlohmann::json;
using quell::testing::Fault;
using testing::MakeDelivery;
using testing::Read;
using testing::SendOnce;
using Kind = core::SendOutcome::Kind;

constexpr const char* kApiKey = "eb243592-faa2-4ba2-a551-1afdf565c889";
constexpr const char* kAlias = "checkout/errors:TypeError:3";

class OpsgenieChannelTest : public ::testing::Test {
 protected:
  std::unique_ptr<OpsgenieChannel> Channel(std::string api_key = kApiKey,
                                           core::Duration total = std::chrono::seconds(5)) {
    OpsgenieSettings settings;
    settings.api_url = receiver_.BaseUrl() + "/";  // a trailing slash is dropped
    settings.api_key = std::move(api_key);
    settings.timeouts.connect = std::min<core::Duration>(total, std::chrono::seconds(1));
    settings.timeouts.total = total;
    auto channel = OpsgenieChannel::Create(settings);
    EXPECT_TRUE(channel.ok()) << channel.error().message;
    return std::move(*channel);
  }
  core::Delivery Delivery(TransitionKind transition, uint64_t version) {
    core::Delivery d = MakeDelivery(transition, version);
    d.row.payload =
        R"({"key":"checkout/errors:TypeError","condition":"checkout-errors","status":"open",)"
        R"("event_count":12,"labels":{"tenant":"acme","stage":"prod"}})";
    return Read(d);
  }

  quell::testing::OpsgenieReceiver receiver_{kApiKey};
  curl::CurlMultiClient client_;
};

TEST_F(OpsgenieChannelTest, OpensCountsARenotifyOnTheSameAlertAndClosesItByAlias) {
  const auto channel = Channel();
  const SendOutcome open = SendOnce(*channel, client_, Delivery(TransitionKind::kOpen, 1));
  ASSERT_EQ(open.kind, Kind::kSent) << open.error;
  const auto status = receiver_.RequestStatus(open.remote_message_id);
  ASSERT_TRUE(status.has_value()) << open.remote_message_id;  // the requestId is the remote id
  EXPECT_EQ(status->status, "Created alert");

  const SendOutcome renotify = SendOnce(*channel, client_, Delivery(TransitionKind::kRenotify, 2));
  ASSERT_EQ(renotify.kind, Kind::kSent) << renotify.error;
  ASSERT_EQ(receiver_.Alerts().size(), 1U);
  EXPECT_EQ(receiver_.Alerts()[0].count, 2);
  EXPECT_EQ(receiver_.Alerts()[0].status, "open");

  const SendOutcome resolve = SendOnce(*channel, client_, Delivery(TransitionKind::kResolve, 3));
  ASSERT_EQ(resolve.kind, Kind::kSent) << resolve.error;
  EXPECT_EQ(receiver_.RequestStatus(resolve.remote_message_id)->status, "Closed alert");
  const auto alerts = receiver_.Alerts();
  ASSERT_EQ(alerts.size(), 1U);
  const quell::testing::OpsgenieAlert& alert = alerts[0];
  EXPECT_EQ(alert.alias, kAlias);
  EXPECT_EQ(alert.status, "closed");
  EXPECT_EQ(alert.message, "TypeError in checkout");
  EXPECT_EQ(alert.description, "12 events since 09:00. Latest: cannot read 'id' of undefined");
  EXPECT_EQ(alert.priority, "P1");  // critical
  EXPECT_EQ(alert.source, "quell");
  EXPECT_EQ(alert.details.at("tenant"), "acme");
  EXPECT_EQ(alert.details.at("quell_key"), "checkout/errors:TypeError");
  EXPECT_EQ(alert.details.at("quell_condition"), "checkout-errors");
  EXPECT_EQ(alert.tags, (std::vector<std::string>{"quell", "critical", "checkout-errors"}));

  const auto requests = receiver_.Requests();
  ASSERT_EQ(requests.size(), 3U);
  EXPECT_EQ(requests[0].path, "/v2/alerts");
  EXPECT_EQ(core::FindHeader(requests[0].headers, "Authorization"),
            std::string("GenieKey ") + kApiKey);
  // The alias travels as one percent-encoded path segment, named an alias by the query.
  EXPECT_EQ(requests[2].path, "/v2/alerts/checkout/errors:TypeError:3/close");
  EXPECT_EQ(json::parse(requests[2].body)["source"], "quell");
}

TEST_F(OpsgenieChannelTest, ANewGenerationIsANewAlertOnceTheOldOneIsClosed) {
  const auto channel = Channel();
  ASSERT_EQ(SendOnce(*channel, client_, Delivery(TransitionKind::kOpen, 1)).kind, Kind::kSent);
  ASSERT_EQ(SendOnce(*channel, client_, Delivery(TransitionKind::kResolve, 2)).kind, Kind::kSent);
  core::Delivery reopen = Delivery(TransitionKind::kOpen, 3);
  reopen.row.generation = 4;
  ASSERT_EQ(SendOnce(*channel, client_, reopen).kind, Kind::kSent);
  const auto alerts = receiver_.Alerts();
  ASSERT_EQ(alerts.size(), 2U);
  EXPECT_EQ(alerts[0].status, "closed");
  EXPECT_EQ(alerts[1].alias, "checkout/errors:TypeError:4");
  EXPECT_EQ(alerts[1].status, "open");
}

TEST_F(OpsgenieChannelTest, AGroupIsOneAlertClosedOnlyWhenNothingInItIsOpen) {
  const auto channel = Channel();
  const core::WallTime t0 = *core::ParseRfc3339("2026-12-02T09:00:00Z");
  const auto send = [&](uint64_t sequence, TransitionKind transition, uint64_t open_after) {
    core::Delivery d;
    d.row =
        core::MakeGroupRow("ops", "condition=model-answer", sequence, transition, open_after, t0);
    d.message = core::RenderedMessage{"[error] 2 incidents of model-answer",
                                      "2 incidents\n- acme:a\n- acme:b", "error"};
    Read(d);
    const SendOutcome sent = SendOnce(*channel, client_, d);
    EXPECT_EQ(sent.kind, Kind::kSent) << sent.error;
  };
  const std::string alias = "{group}:condition=model-answer";
  send(1, TransitionKind::kOpen, 2);
  send(2, TransitionKind::kResolve, 1);  // one of two resolved: the alert stays open
  ASSERT_TRUE(receiver_.AlertByAlias(alias).has_value());
  EXPECT_EQ(receiver_.AlertByAlias(alias)->status, "open");
  EXPECT_EQ(receiver_.AlertByAlias(alias)->count, 2);
  EXPECT_EQ(receiver_.AlertByAlias(alias)->details.at("quell_kind"), "group");
  EXPECT_EQ(receiver_.AlertByAlias(alias)->priority, "P2");
  send(3, TransitionKind::kResolve, 0);
  EXPECT_EQ(receiver_.AlertByAlias(alias)->status, "closed");
  EXPECT_EQ(receiver_.Alerts().size(), 1U);
}

TEST_F(OpsgenieChannelTest, KeepsToOpsgeniesLimitsSoNothingIsRefused) {
  core::Delivery d = Delivery(TransitionKind::kOpen, 1);
  d.row.key = std::string(600, 'k');
  d.message.subject = std::string(300, 's');
  d.message.body = std::string(20000, 'b');
  d.message.severity = "page-everyone";
  std::string labels;
  for (int i = 0; i < 200; ++i) {
    labels += (i > 0 ? "," : "") +
              ("\"label" + std::to_string(i) + "\":\"" + std::string(60, 'v') + "\"");
  }
  d.row.payload =
      R"({"key":"k","condition":")" + std::string(80, 'c') + R"(","labels":{)" + labels + "}}";
  Read(d);
  const SendOutcome sent = SendOnce(*Channel(), client_, d);
  ASSERT_EQ(sent.kind, Kind::kSent) << sent.error;
  const auto alerts = receiver_.Alerts();
  ASSERT_EQ(alerts.size(), 1U);
  EXPECT_EQ(alerts[0].alias, OpsgenieAlias(d.row));
  EXPECT_LE(alerts[0].alias.size(), 512U);
  EXPECT_NE(alerts[0].alias.find('~'), std::string::npos);
  EXPECT_EQ(alerts[0].priority, "P2");  // an unknown severity still pages
  EXPECT_LT(alerts[0].details.size(), 200U);
}

TEST_F(OpsgenieChannelTest, TheStandInRefusesWhatOpsgenieRefusesAndTheChannelSaysWhy) {
  // A message over 130 characters, as no rendered message reaches the channel: the stand-in's
  // 422 with Opsgenie's errors map, permanent.
  core::HttpRequest request;
  request.method = "POST";
  request.url = receiver_.BaseUrl() + "/v2/alerts";
  request.headers = {{"Authorization", std::string("GenieKey ") + kApiKey},
                     {"Content-Type", "application/json"}};
  request.body = json{{"message", std::string(131, 'm')}}.dump();
  std::optional<core::HttpResponse> answer;
  client_.SendAll(std::vector<core::HttpExchange>{{request, 0}}, std::vector<uint32_t>{1},
                  [&](size_t, core::Result<core::HttpResponse> r) {
                    if (r.ok()) answer = *r;
                  });
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->status, 422);
  const SendOutcome outcome = Channel()->Decode(MakeDelivery(), *answer);
  EXPECT_EQ(outcome.kind, Kind::kPermanent);
  EXPECT_EQ(outcome.error,
            "opsgenie: HTTP 422: Request body is not processable. Please check the errors.; "
            "message: Message can not be longer than 130 characters.");

  const SendOutcome refused = SendOnce(*Channel("wrong-key"), client_, MakeDelivery());
  EXPECT_EQ(refused.kind, Kind::kPermanent);
  EXPECT_EQ(refused.error, "opsgenie: HTTP 401: Could not authenticate");
  EXPECT_TRUE(receiver_.Alerts().empty());
}

TEST_F(OpsgenieChannelTest, A429IsThrottledForItsRetryAfterElseForTheThrottledPeriod) {
  const auto channel = Channel();
  receiver_.FailNext(Fault::kStatus429);
  SendOutcome outcome = SendOnce(*channel, client_, Delivery(TransitionKind::kOpen, 1));
  EXPECT_EQ(outcome.kind, Kind::kRetry);
  EXPECT_TRUE(outcome.throttled);
  EXPECT_EQ(outcome.retry_after, std::chrono::seconds(7));
  EXPECT_NE(outcome.error.find("too many requests"), std::string::npos) << outcome.error;

  receiver_.SetThrottle(1, /*retry_after=*/false);
  receiver_.FailNext(Fault::kStatus429);
  outcome = SendOnce(*channel, client_, Delivery(TransitionKind::kOpen, 1));
  EXPECT_TRUE(outcome.throttled);
  EXPECT_EQ(outcome.retry_after, std::chrono::seconds(1));
  EXPECT_TRUE(receiver_.Alerts().empty());
  // Once the bucket refills, the same create opens the one alert.
  ASSERT_EQ(SendOnce(*channel, client_, Delivery(TransitionKind::kOpen, 1)).kind, Kind::kSent);
  EXPECT_EQ(receiver_.Alerts().size(), 1U);
}

TEST_F(OpsgenieChannelTest, A5xxIsRetriedAndTheRetryOpensTheAlert) {
  const auto channel = Channel();
  receiver_.FailNext(Fault::kStatus500);
  const SendOutcome failed = SendOnce(*channel, client_, Delivery(TransitionKind::kOpen, 1));
  EXPECT_EQ(failed.kind, Kind::kRetry);
  EXPECT_FALSE(failed.throttled);
  EXPECT_EQ(failed.error, "opsgenie: HTTP 500: Internal Server Error");
  EXPECT_TRUE(receiver_.Alerts().empty());
  ASSERT_EQ(SendOnce(*channel, client_, Delivery(TransitionKind::kOpen, 1)).kind, Kind::kSent);
  EXPECT_EQ(receiver_.Alerts().size(), 1U);
}

// Opsgenie has no idempotency key, but its alias de-duplication makes a create safe to repeat
// while the alert is open: the retry after a lost answer counts on the one alert.
TEST_F(OpsgenieChannelTest, ARetryAfterAHangLeavesExactlyOneOpenAlert) {
  const auto channel = Channel(kApiKey, std::chrono::milliseconds(300));
  receiver_.FailNext(Fault::kHang);
  EXPECT_EQ(SendOnce(*channel, client_, Delivery(TransitionKind::kOpen, 1)).kind, Kind::kRetry);
  EXPECT_EQ(SendOnce(*channel, client_, Delivery(TransitionKind::kOpen, 1)).kind, Kind::kSent);
  EXPECT_EQ(receiver_.Requests().size(), 2U);
  const auto alerts = receiver_.Alerts();
  ASSERT_EQ(alerts.size(), 1U);
  EXPECT_EQ(alerts[0].status, "open");
  EXPECT_EQ(alerts[0].count, 2);
  // A close lost the same way and retried closes that alert; the repeat finds none open.
  receiver_.FailNext(Fault::kHang);
  EXPECT_EQ(SendOnce(*channel, client_, Delivery(TransitionKind::kResolve, 2)).kind, Kind::kRetry);
  const SendOutcome again = SendOnce(*channel, client_, Delivery(TransitionKind::kResolve, 2));
  ASSERT_EQ(again.kind, Kind::kSent);
  EXPECT_EQ(receiver_.RequestStatus(again.remote_message_id)->status, "Alert does not exist");
  EXPECT_EQ(receiver_.Alerts().size(), 1U);
  EXPECT_EQ(receiver_.Alerts()[0].status, "closed");
}

TEST_F(OpsgenieChannelTest, TheKeyNeverReachesAnError) {
  core::HttpResponse response;
  response.status = 401;
  response.body = std::string(R"({"message":"Key )") + kApiKey + R"( is not valid"})";
  const SendOutcome outcome = Channel()->Decode(MakeDelivery(), response);
  EXPECT_EQ(outcome.error.find(kApiKey), std::string::npos) << outcome.error;
  EXPECT_NE(outcome.error.find("[redacted]"), std::string::npos) << outcome.error;
}

TEST(OpsgenieSettingsTest, CreateNeedsAKeyAndAnHttpUrl) {
  OpsgenieSettings settings;
  auto r = OpsgenieChannel::Create(settings);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "opsgenie: api_key is required");
  settings.api_key = kApiKey;
  settings.api_url = "api.eu.opsgenie.com";
  r = OpsgenieChannel::Create(settings);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "opsgenie: api_url must start with http:// or https://");
  settings.api_url = "https://api.eu.opsgenie.com";
  EXPECT_TRUE(OpsgenieChannel::Create(settings).ok());
}

TEST(OpsgenieAliasTest, IsTheKeyAndGenerationOrTheGroupRowsKey) {
  core::OutboxRow row;
  row.key = "acme:answer";
  row.generation = 7;
  EXPECT_EQ(OpsgenieAlias(row), "acme:answer:7");
  row.kind = core::OutboxRowKind::kGroup;  // what makes it a group's row, not its key
  row.key = "{group}:condition=x";
  EXPECT_EQ(OpsgenieAlias(row), "{group}:condition=x");
  row.kind = core::OutboxRowKind::kIncident;
  row.key = std::string(520, 'a');
  const std::string first = OpsgenieAlias(row);
  row.key.back() = 'b';
  EXPECT_NE(OpsgenieAlias(row), first);  // cut, yet still unique
  EXPECT_EQ(first.size(), 512U);
  EXPECT_EQ(OpsgeniePriority("critical"), std::string("P1"));
  EXPECT_EQ(OpsgeniePriority("error"), std::string("P2"));
  EXPECT_EQ(OpsgeniePriority("warning"), std::string("P3"));
  EXPECT_EQ(OpsgeniePriority("info"), std::string("P4"));
}

}  // namespace
}  // namespace quell::channels
