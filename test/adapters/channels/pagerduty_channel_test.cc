// PagerDutyChannel through CurlMultiClient against the loopback PagerDutyReceiver.
#include "quell/adapters/channels/pagerduty/pagerduty_channel.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "channel_test_support.h"
#include "pagerduty_receiver.h"
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

constexpr const char* kRoutingKey = "R0123456789abcdef0123456789abcde";

class PagerDutyChannelTest : public ::testing::Test {
 protected:
  std::unique_ptr<PagerDutyChannel> Channel(std::string routing_key = kRoutingKey,
                                            core::Duration total = std::chrono::seconds(5)) {
    PagerDutySettings settings;
    settings.base_url = receiver_.BaseUrl();
    settings.routing_key = std::move(routing_key);
    settings.source.clear();  // payload.source falls back to the incident key
    settings.timeouts.connect = std::min<core::Duration>(total, std::chrono::seconds(1));
    settings.timeouts.total = total;
    auto channel = PagerDutyChannel::Create(settings);
    EXPECT_TRUE(channel.ok()) << channel.error().message;
    return std::move(*channel);
  }

  quell::testing::PagerDutyReceiver receiver_{kRoutingKey};
  curl::CurlMultiClient client_;
};

TEST_F(PagerDutyChannelTest, AGroupIsOneAlertThatResolvesOnlyWhenNothingInItIsOpen) {
  const auto channel = Channel();
  const core::WallTime t0 = *core::ParseRfc3339("2026-12-02T09:00:00Z");
  const auto send = [&](uint64_t sequence, TransitionKind transition, uint64_t open_after) {
    core::Delivery d;
    d.row =
        core::MakeGroupRow("ops", "condition=model-answer", sequence, transition, open_after, t0);
    d.message = core::RenderedMessage{"2 incidents", "2 incidents", "error"};
    Read(d);
    const SendOutcome sent = SendOnce(*channel, client_, d);
    EXPECT_EQ(sent.kind, Kind::kSent) << sent.error;
  };
  send(1, TransitionKind::kOpen, 2);
  send(2, TransitionKind::kResolve, 1);  // one of two resolved: the alert stays
  EXPECT_EQ(receiver_.Alerts().at("{group}:condition=model-answer"), "triggered");
  send(3, TransitionKind::kResolve, 0);
  EXPECT_EQ(receiver_.Alerts().at("{group}:condition=model-answer"), "resolved");
  EXPECT_EQ(receiver_.Alerts().size(), 1u);
}

TEST_F(PagerDutyChannelTest, TriggersOnOpenAndRenotifyAndResolvesWithOneDedupKey) {
  const auto channel = Channel();
  const SendOutcome open = SendOnce(*channel, client_, MakeDelivery(TransitionKind::kOpen, 1));
  ASSERT_EQ(open.kind, Kind::kSent) << open.error;
  EXPECT_EQ(open.remote_message_id, "checkout/errors:TypeError:3");
  EXPECT_EQ(SendOnce(*channel, client_, MakeDelivery(TransitionKind::kRenotify, 2)).kind,
            Kind::kSent);
  EXPECT_EQ(receiver_.Alerts().at("checkout/errors:TypeError:3"), "triggered");
  EXPECT_EQ(SendOnce(*channel, client_, MakeDelivery(TransitionKind::kResolve, 3)).kind,
            Kind::kSent);
  EXPECT_EQ(receiver_.Alerts().at("checkout/errors:TypeError:3"), "resolved");

  const auto requests = receiver_.Requests();
  ASSERT_EQ(requests.size(), 3u);
  const json trigger = json::parse(requests[0].body);
  EXPECT_EQ(requests[0].path, "/v2/enqueue");
  EXPECT_EQ(trigger["routing_key"], kRoutingKey);
  EXPECT_EQ(trigger["event_action"], "trigger");
  EXPECT_EQ(trigger["dedup_key"], "checkout/errors:TypeError:3");
  EXPECT_EQ(trigger["payload"]["summary"], "TypeError in checkout");
  EXPECT_EQ(trigger["payload"]["severity"], "critical");
  EXPECT_EQ(trigger["payload"]["source"], "checkout/errors:TypeError");
  EXPECT_EQ(trigger["payload"]["custom_details"]["event_count"], 12);
  EXPECT_EQ(json::parse(requests[1].body)["event_action"], "trigger");
  const json resolve = json::parse(requests[2].body);
  EXPECT_EQ(resolve["event_action"], "resolve");
  EXPECT_FALSE(resolve.contains("payload"));
  // The renotify is the same alert to PagerDuty: it pages once.
  EXPECT_TRUE(requests[1].duplicate);
  EXPECT_EQ(receiver_.Events().size(), 2u);
}

TEST_F(PagerDutyChannelTest, CutsTheSummaryAndMapsAnUnknownSeverity) {
  core::Delivery delivery = MakeDelivery();
  delivery.message.subject = std::string(2000, 's');
  delivery.message.severity = "page-everyone";
  ASSERT_EQ(SendOnce(*Channel(), client_, delivery).kind, Kind::kSent);
  const auto events = receiver_.Events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_LE(events[0].summary.size(), 1024u);
  EXPECT_EQ(events[0].severity, "error");
}

TEST_F(PagerDutyChannelTest, APushedAlertsRunbookIsALinkOnTheIncident) {
  core::Delivery delivery = MakeDelivery();
  delivery.message.links = {{"https://runbooks.example.com/disk-full?host=db-1", "Runbook"}};
  ASSERT_EQ(SendOnce(*Channel(), client_, delivery).kind, Kind::kSent);
  core::Delivery plain = MakeDelivery(TransitionKind::kRenotify, 2);
  ASSERT_EQ(SendOnce(*Channel(), client_, plain).kind, Kind::kSent);
  const auto requests = receiver_.Requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(json::parse(requests[0].body)["links"],
            json::parse(R"([{"href":"https://runbooks.example.com/disk-full?host=db-1",)"
                        R"("text":"Runbook"}])"));
  EXPECT_FALSE(json::parse(requests[1].body).contains("links"));
}

TEST_F(PagerDutyChannelTest, DecodesPagerDutysErrors) {
  SendOutcome outcome = SendOnce(*Channel("wrong_routing_key_0000"), client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kPermanent);
  EXPECT_EQ(outcome.error, "pagerduty: HTTP 400: Event object is invalid; Invalid routing key");

  const auto channel = Channel();
  receiver_.FailNext(Fault::kStatus429);
  outcome = SendOnce(*channel, client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kRetry);
  EXPECT_TRUE(outcome.throttled);
  ASSERT_TRUE(outcome.retry_after.has_value());
  receiver_.FailNext(Fault::kStatus500);
  outcome = SendOnce(*channel, client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kRetry);
  EXPECT_FALSE(outcome.throttled);
  EXPECT_TRUE(receiver_.Events().empty());
}

TEST_F(PagerDutyChannelTest, ARetryAfterAHangPagesOnce) {
  const auto channel = Channel(kRoutingKey, std::chrono::milliseconds(300));
  receiver_.FailNext(Fault::kHang);
  EXPECT_EQ(SendOnce(*channel, client_, MakeDelivery()).kind, Kind::kRetry);
  EXPECT_EQ(SendOnce(*channel, client_, MakeDelivery()).kind, Kind::kSent);
  EXPECT_EQ(receiver_.Requests().size(), 2u);
  EXPECT_EQ(receiver_.Events().size(), 1u);
}

TEST_F(PagerDutyChannelTest, TheRoutingKeyNeverReachesAnError) {
  core::HttpResponse response;
  response.status = 400;
  response.body = std::string(R"({"message":"bad key )") + kRoutingKey + R"("})";
  const SendOutcome outcome = Channel()->Decode(MakeDelivery(), response);
  EXPECT_EQ(outcome.error.find(kRoutingKey), std::string::npos) << outcome.error;
}

TEST(PagerDutySettingsTest, CreateNeedsARoutingKeyAndAnHttpUrl) {
  PagerDutySettings settings;
  auto r = PagerDutyChannel::Create(settings);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "pagerduty: routing_key is required");
  settings.routing_key = kRoutingKey;
  settings.base_url = "events.pagerduty.com";
  r = PagerDutyChannel::Create(settings);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "pagerduty: base_url must start with http:// or https://");
}

}  // namespace
}  // namespace quell::channels
