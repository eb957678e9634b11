// NtfyChannel through CurlMultiClient against the loopback NtfyReceiver, which follows
// docs.ntfy.sh/publish.
#include "quell/adapters/channels/ntfy/ntfy_channel.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "channel_test_support.h"
#include "ntfy_receiver.h"
#include "quell/core/delivery/grouping.h"

namespace quell::channels {
namespace ntfy_channel_test {

using core::SendOutcome;
using core::TransitionKind;
using nlohmann::json;
using quell::testing::Fault;
using testing::MakeDelivery;
using testing::SendOnce;
using Kind = core::SendOutcome::Kind;

constexpr const char* kToken = "tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2";

class NtfyChannelTest : public ::testing::Test {
 protected:
  std::unique_ptr<NtfyChannel> Channel(std::string token = kToken,
                                       core::Duration total = std::chrono::seconds(5)) {
    NtfySettings settings;
    settings.url = receiver_.TopicUrl();
    settings.token = std::move(token);
    settings.link_prefix = "https://quell.example.com/incidents/";
    settings.timeouts.connect = std::min<core::Duration>(total, std::chrono::seconds(1));
    settings.timeouts.total = total;
    auto channel = NtfyChannel::Create(settings);
    EXPECT_TRUE(channel.ok()) << channel.error().message;
    return std::move(*channel);
  }

  quell::testing::NtfyReceiver receiver_{kToken};
  curl::CurlMultiClient client_;
};

TEST_F(NtfyChannelTest, PublishesTitlePriorityTagsAndClickFromTheIncident) {
  const auto channel = Channel();
  const SendOutcome open = SendOnce(*channel, client_, MakeDelivery(TransitionKind::kOpen, 1));
  ASSERT_EQ(open.kind, Kind::kSent) << open.error;
  core::Delivery renotify = MakeDelivery(TransitionKind::kRenotify, 2);
  renotify.message.severity = "warning";
  ASSERT_EQ(SendOnce(*channel, client_, renotify).kind, Kind::kSent);
  core::Delivery resolve = MakeDelivery(TransitionKind::kResolve, 3);
  resolve.message.subject = "Resolved: TypeError in checkout";
  const SendOutcome resolved = SendOnce(*channel, client_, resolve);
  ASSERT_EQ(resolved.kind, Kind::kSent) << resolved.error;

  const auto messages = receiver_.Messages();
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_EQ(open.remote_message_id, messages[0].id);
  EXPECT_EQ(resolved.remote_message_id, messages[2].id);
  EXPECT_EQ(messages[0].topic, "quell-alerts");
  EXPECT_EQ(messages[0].title, "TypeError in checkout");
  EXPECT_EQ(messages[0].message, "12 events since 09:00. Latest: cannot read 'id' of undefined");
  EXPECT_EQ(messages[0].priority, 5);  // critical
  EXPECT_EQ(messages[0].tags, (std::vector<std::string>{"rotating_light", "critical"}));
  EXPECT_EQ(messages[0].click, "https://quell.example.com/incidents/checkout%2Ferrors%3ATypeError");
  EXPECT_EQ(messages[1].priority, 3);  // warning
  EXPECT_EQ(messages[1].tags[0], "warning");
  EXPECT_EQ(messages[2].priority, 2);  // a resolve is quiet
  EXPECT_EQ(messages[2].tags[0], "white_check_mark");

  const auto requests = receiver_.Requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0].path, "/");  // the JSON form goes to the server's root
  EXPECT_EQ(core::FindHeader(requests[0].headers, "Authorization"),
            std::string("Bearer ") + kToken);
  EXPECT_EQ(requests[0].body.find(kToken), std::string::npos) << "the token is a header only";
}

TEST_F(NtfyChannelTest, APushedAlertsRunbookIsAViewButton) {
  core::Delivery delivery = MakeDelivery(TransitionKind::kOpen, 1);
  delivery.message.links = {{"https://runbooks.example.com/disk-full", "Runbook"}};
  ASSERT_EQ(SendOnce(*Channel(), client_, delivery).kind, Kind::kSent);
  ASSERT_EQ(SendOnce(*Channel(), client_, MakeDelivery(TransitionKind::kRenotify, 2)).kind,
            Kind::kSent);
  const auto requests = receiver_.Requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(json::parse(requests[0].body)["actions"],
            json::parse(R"([{"action":"view","label":"Runbook",)"
                        R"("url":"https://runbooks.example.com/disk-full"}])"));
  EXPECT_FALSE(json::parse(requests[1].body).contains("actions"));
}

TEST_F(NtfyChannelTest, PrioritiesFollowTheSeverity) {
  EXPECT_EQ(NtfyPriority("critical", false), 5);
  EXPECT_EQ(NtfyPriority("fatal", false), 5);
  EXPECT_EQ(NtfyPriority("error", false), 4);
  EXPECT_EQ(NtfyPriority("warning", false), 3);
  EXPECT_EQ(NtfyPriority("info", false), 2);
  EXPECT_EQ(NtfyPriority("critical", true), 2);
}

TEST_F(NtfyChannelTest, AGroupMessageIsOneNotificationWithoutAClick) {
  const core::WallTime t0 = *core::ParseRfc3339("2026-12-02T09:00:00Z");
  core::Delivery d;
  d.row = core::MakeGroupRow("ops", "condition=model-answer", 1, TransitionKind::kOpen, 2, t0);
  d.message = core::RenderedMessage{"[error] condition=model-answer: 2 opened",
                                    std::string(6000, 'm'), "error"};
  const SendOutcome sent = SendOnce(*Channel(), client_, d);
  ASSERT_EQ(sent.kind, Kind::kSent) << sent.error;
  const auto messages = receiver_.Messages();
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0].click, "");
  EXPECT_EQ(messages[0].priority, 4);
  EXPECT_LE(messages[0].message.size(), 4096u);  // cut to what ntfy takes as a message
}

TEST_F(NtfyChannelTest, A429IsThrottledWithItsRetryAfterAndA500IsRetried) {
  const auto channel = Channel();
  receiver_.SetRetryAfter("20");
  receiver_.FailNext(Fault::kStatus429);
  SendOutcome outcome = SendOnce(*channel, client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kRetry);
  EXPECT_TRUE(outcome.throttled);
  ASSERT_TRUE(outcome.retry_after.has_value());
  EXPECT_EQ(*outcome.retry_after, std::chrono::seconds(20));
  EXPECT_NE(outcome.error.find("limit reached"), std::string::npos) << outcome.error;
  EXPECT_NE(outcome.error.find("42901"), std::string::npos) << outcome.error;

  receiver_.FailNext(Fault::kStatus500);
  outcome = SendOnce(*channel, client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kRetry);
  EXPECT_FALSE(outcome.throttled);
  EXPECT_TRUE(receiver_.Messages().empty());
  EXPECT_EQ(SendOnce(*channel, client_, MakeDelivery()).kind, Kind::kSent);
  EXPECT_EQ(receiver_.Messages().size(), 1u);
}

// ntfy has no idempotency key: when the answer to a publish is lost, the retry publishes
// again, and the phone shows the notification twice. quell cannot tell the first one arrived.
TEST_F(NtfyChannelTest, ARetryAfterAHangIsASecondNotification) {
  const auto channel = Channel(kToken, std::chrono::milliseconds(300));
  receiver_.FailNext(Fault::kHang);
  const SendOutcome lost = SendOnce(*channel, client_, MakeDelivery());
  EXPECT_EQ(lost.kind, Kind::kRetry);
  EXPECT_EQ(lost.error.find(kToken), std::string::npos);
  receiver_.ReleaseHung();
  const SendOutcome retry = SendOnce(*channel, client_, MakeDelivery());
  ASSERT_EQ(retry.kind, Kind::kSent) << retry.error;
  const auto messages = receiver_.Messages();
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0].title, messages[1].title);
  EXPECT_NE(messages[0].id, messages[1].id);
  EXPECT_EQ(retry.remote_message_id, messages[1].id);
}

TEST_F(NtfyChannelTest, AWrongOrMissingTokenIsPermanentAndTheTokenNeverInTheError) {
  SendOutcome outcome =
      SendOnce(*Channel("tk_wrongwrongwrongwrongwrong000"), client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kPermanent);
  EXPECT_EQ(outcome.error, "ntfy: HTTP 401: unauthorized (code 40101)");
  outcome = SendOnce(*Channel(""), client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kPermanent);
  EXPECT_EQ(outcome.error, "ntfy: HTTP 403: forbidden (code 40301)");

  core::HttpResponse echo;
  echo.status = 400;
  echo.body = std::string(R"({"code":40000,"http":400,"error":"bad )") + kToken + R"("})";
  EXPECT_EQ(Channel()->Decode(MakeDelivery(), echo).error.find(kToken), std::string::npos);
}

TEST(NtfySettingsTest, CreateNeedsATopicUrl) {
  NtfySettings settings;
  auto r = NtfyChannel::Create(settings);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "ntfy: url is required");
  for (const char* url : {"https://ntfy.sh/", "https://ntfy.sh", "https://ntfy.sh/a?b=c",
                          "https://ntfy.sh/bad.topic"}) {
    settings.url = url;
    r = NtfyChannel::Create(settings);
    ASSERT_FALSE(r.ok()) << url;
    EXPECT_NE(r.error().message.find("topic URL"), std::string::npos) << r.error().message;
  }
  settings.url = "https://push.example.com/ntfy/ops_alerts-1";
  EXPECT_TRUE(NtfyChannel::Create(settings).ok());
}

}  // namespace ntfy_channel_test
}  // namespace quell::channels
