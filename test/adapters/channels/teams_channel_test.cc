// TeamsChannel through CurlMultiClient against the loopback TeamsReceiver (a Workflows trigger
// posting the card it is sent).
#include "quell/adapters/channels/teams/teams_channel.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "channel_test_support.h"
#include "quell/core/delivery/grouping.h"
#include "teams_receiver.h"

namespace quell::channels {
namespace {

using core::SendOutcome;
using core::TransitionKind;
using nlohmann::json;
using quell::testing::Fault;
using testing::MakeDelivery;
using testing::SendOnce;
using Kind = core::SendOutcome::Kind;

constexpr const char* kSignature = "Sg0aB1cD2eF3gH4iJ5kL6mN7oP8qR9sT";

class TeamsChannelTest : public ::testing::Test {
 protected:
  std::unique_ptr<TeamsChannel> Channel(std::string url = "",
                                        core::Duration total = std::chrono::seconds(5)) {
    TeamsSettings settings;
    settings.url = url.empty() ? receiver_.Url() : std::move(url);
    settings.timeouts.connect = std::min<core::Duration>(total, std::chrono::seconds(1));
    settings.timeouts.total = total;
    auto channel = TeamsChannel::Create(settings);
    EXPECT_TRUE(channel.ok()) << channel.error().message;
    return std::move(*channel);
  }

  quell::testing::TeamsReceiver receiver_{kSignature};
  curl::CurlMultiClient client_;
};

TEST_F(TeamsChannelTest, OpenRenotifyAndResolveEachPostAnAdaptiveCard) {
  const auto channel = Channel();
  for (const auto& [transition, version] :
       {std::pair{TransitionKind::kOpen, 1}, std::pair{TransitionKind::kRenotify, 2},
        std::pair{TransitionKind::kResolve, 3}}) {
    core::Delivery delivery = MakeDelivery(transition, static_cast<uint64_t>(version));
    if (transition != TransitionKind::kOpen) delivery.thread_remote_id = "ignored";
    const SendOutcome sent = SendOnce(*channel, client_, delivery);
    ASSERT_EQ(sent.kind, Kind::kSent) << sent.error;
    EXPECT_EQ(sent.remote_message_id, "") << "a Workflows trigger tells no message id";
  }
  EXPECT_TRUE(receiver_.FailedRuns().empty()) << receiver_.FailedRuns().front();
  const auto cards = receiver_.Cards();
  ASSERT_EQ(cards.size(), 3u);
  EXPECT_EQ(cards[0].title, "TypeError in checkout");
  ASSERT_EQ(cards[0].lines.size(), 1u);
  EXPECT_EQ(cards[0].lines[0], "12 events since 09:00. Latest: cannot read 'id' of undefined");
  EXPECT_EQ(cards[0].facts.at("Key"), "checkout/errors:TypeError");
  EXPECT_EQ(cards[0].facts.at("Transition"), "open");
  EXPECT_EQ(cards[0].facts.at("Severity"), "critical");
  EXPECT_EQ(cards[0].facts.at("quell id"), MakeDelivery().row.idempotency_key);
  EXPECT_EQ(cards[1].facts.at("Transition"), "renotify");
  EXPECT_EQ(cards[2].facts.at("Transition"), "resolve");

  const auto requests = receiver_.Requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(core::FindHeader(requests[0].headers, "Content-Type"),
            "application/json; charset=utf-8");
  const json body = json::parse(requests[0].body);
  EXPECT_EQ(body["type"], "message");
  ASSERT_EQ(body["attachments"].size(), 1u);
  EXPECT_EQ(body["attachments"][0]["contentType"], "application/vnd.microsoft.card.adaptive");
  EXPECT_TRUE(body["attachments"][0]["contentUrl"].is_null());
  const json& card = body["attachments"][0]["content"];
  EXPECT_EQ(card["type"], "AdaptiveCard");
  EXPECT_EQ(card["version"], "1.4");
  EXPECT_EQ(card["body"][0]["color"], "attention");
  EXPECT_EQ(json::parse(requests[2].body)["attachments"][0]["content"]["body"][0]["color"], "good");
}

// 200 members' lines and more: the card keeps Teams' 28 KB (the stand-in fails the run of a
// larger one) and says it was cut.
TEST_F(TeamsChannelTest, AGroupMessageIsOneCardWithinTeamsSizeLimit) {
  core::Delivery group;
  group.row = core::MakeGroupRow("ops", "condition=model-answer", 1, TransitionKind::kOpen, 200,
                                 *core::ParseRfc3339("2026-12-02T09:00:00Z"));
  group.message.subject = "[error] condition=model-answer: 200 opened; 200 still open";
  for (int i = 0; i < 400; ++i) {
    group.message.body += "  - opened t" + std::to_string(i) +
                          "/model-answer/TimeoutError: " + std::string(80, 'x') + "\n";
  }
  group.message.severity = "error";
  const SendOutcome sent = SendOnce(*Channel(), client_, group);
  ASSERT_EQ(sent.kind, Kind::kSent) << sent.error;
  ASSERT_TRUE(receiver_.FailedRuns().empty()) << receiver_.FailedRuns().front();
  const auto cards = receiver_.Cards();
  ASSERT_EQ(cards.size(), 1u);
  EXPECT_LE(cards[0].bytes, 28u * 1024u);
  EXPECT_GT(cards[0].lines.size(), 100u);
  EXPECT_EQ(cards[0].lines.back(), "\xE2\x80\xA6");
  EXPECT_EQ(cards[0].facts.at("Group"), "{group}:condition=model-answer");
}

TEST_F(TeamsChannelTest, A429IsThrottledForItsRetryAfterAndA5xxIsRetried) {
  const auto channel = Channel();
  receiver_.SetRetryAfter("30");
  receiver_.FailNext(Fault::kStatus429);
  SendOutcome outcome = SendOnce(*channel, client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kRetry);
  EXPECT_TRUE(outcome.throttled);
  ASSERT_TRUE(outcome.retry_after.has_value());
  EXPECT_EQ(*outcome.retry_after, std::chrono::seconds(30));
  EXPECT_NE(outcome.error.find("teams: HTTP 429: WorkflowRequestsThrottled"), std::string::npos)
      << outcome.error;

  receiver_.FailNext(Fault::kStatus500);
  outcome = SendOnce(*channel, client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kRetry);
  EXPECT_FALSE(outcome.throttled);
  EXPECT_TRUE(receiver_.Cards().empty());
  EXPECT_EQ(SendOnce(*channel, client_, MakeDelivery()).kind, Kind::kSent);
  EXPECT_EQ(receiver_.Cards().size(), 1u);
}

// Workflows take no idempotency key: when the trigger accepted a request whose answer was lost,
// the retry posts a second card. What quell can do is say so: both carry the same outbox key.
TEST_F(TeamsChannelTest, ARetryAfterAHangPostsASecondCardWithTheSameQuellId) {
  const auto channel = Channel("", std::chrono::milliseconds(300));
  const core::Delivery delivery = MakeDelivery();
  receiver_.FailNext(Fault::kHang);
  const SendOutcome hung = SendOnce(*channel, client_, delivery);
  EXPECT_EQ(hung.kind, Kind::kRetry);
  EXPECT_EQ(hung.error.find(kSignature), std::string::npos) << hung.error;
  EXPECT_NE(hung.error.find("/[redacted]"), std::string::npos) << hung.error;
  EXPECT_EQ(SendOnce(*channel, client_, delivery).kind, Kind::kSent);
  const auto cards = receiver_.Cards();
  ASSERT_EQ(cards.size(), 2u);
  EXPECT_EQ(cards[0].facts.at("quell id"), cards[1].facts.at("quell id"));
  EXPECT_TRUE(receiver_.Requests().at(1).duplicate);
}

TEST_F(TeamsChannelTest, AWrongSignatureIsPermanentAndNeverInTheError) {
  const std::string wrong = "WrongSignature0123456789";
  std::string url = receiver_.Url();
  url.replace(url.find(kSignature), std::string(kSignature).size(), wrong);
  const SendOutcome outcome = SendOnce(*Channel(url), client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kPermanent);
  EXPECT_NE(outcome.error.find("teams: HTTP 401: DirectApiInvalidAuthorizationSignature"),
            std::string::npos)
      << outcome.error;
  EXPECT_EQ(outcome.error.find(wrong), std::string::npos);

  core::HttpResponse echo;
  echo.status = 400;
  echo.body = R"({"error":{"code":"BadRequest","message":"sig )" + wrong + R"( refused"}})";
  EXPECT_EQ(Channel(url)->Decode(MakeDelivery(), echo).error.find(wrong), std::string::npos);
}

TEST(TeamsSettingsTest, CreateNeedsAnHttpUrl) {
  TeamsSettings settings;
  auto r = TeamsChannel::Create(settings);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "teams: url is required");
  settings.url = "prod-01.westeurope.logic.azure.com/workflows/x";
  r = TeamsChannel::Create(settings);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "teams: url must start with http:// or https://");
}

}  // namespace
}  // namespace quell::channels
