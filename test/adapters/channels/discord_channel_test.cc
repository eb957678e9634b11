// DiscordChannel through CurlMultiClient against the loopback DiscordReceiver (Execute Webhook).
#include "quell/adapters/channels/discord/discord_channel.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "channel_test_support.h"
#include "discord_receiver.h"
#include "quell/core/delivery/grouping.h"

namespace quell::channels {
namespace {

using core::SendOutcome;
using core::TransitionKind;
using nlohmann::json;
using quell::testing::Fault;
using testing::MakeDelivery;
using testing::SendOnce;
using Kind = core::SendOutcome::Kind;

constexpr const char* kWebhookId = "1111111111111111111";
constexpr const char* kToken = "dIsCoRdToKeN_0123456789-abcdefghijklmnopqrstuvwxyzABCDEFGH";

size_t Chars(const std::string& s) {
  size_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

class DiscordChannelTest : public ::testing::Test {
 protected:
  std::unique_ptr<DiscordChannel> Channel(std::string url = "",
                                          core::Duration total = std::chrono::seconds(5)) {
    DiscordSettings settings;
    settings.url = url.empty() ? receiver_.WebhookUrl() : std::move(url);
    settings.username = "quell";
    settings.timeouts.connect = std::min<core::Duration>(total, std::chrono::seconds(1));
    settings.timeouts.total = total;
    auto channel = DiscordChannel::Create(settings);
    EXPECT_TRUE(channel.ok()) << channel.error().message;
    return std::move(*channel);
  }

  quell::testing::DiscordReceiver receiver_{kWebhookId, kToken};
  curl::CurlMultiClient client_;
};

// wait=true makes Discord answer with the message: its id is the remote id, and the
// follow-ups (webhooks cannot reply) name it in their footer.
TEST_F(DiscordChannelTest, TheOpensMessageIdIsTheRemoteIdAndFollowUpsNameIt) {
  const auto channel = Channel();
  const SendOutcome open = SendOnce(*channel, client_, MakeDelivery(TransitionKind::kOpen, 1));
  ASSERT_EQ(open.kind, Kind::kSent) << open.error;
  EXPECT_EQ(open.remote_message_id, "1300000000000000001");
  for (const auto& [transition, version] :
       {std::pair{TransitionKind::kRenotify, 2}, std::pair{TransitionKind::kResolve, 3}}) {
    core::Delivery follow_up = MakeDelivery(transition, static_cast<uint64_t>(version));
    follow_up.thread_remote_id = open.remote_message_id;
    const SendOutcome sent = SendOnce(*channel, client_, follow_up);
    ASSERT_EQ(sent.kind, Kind::kSent) << sent.error;
    EXPECT_NE(sent.remote_message_id, open.remote_message_id);
  }
  const auto messages = receiver_.Messages();
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_EQ(messages[0].content, "TypeError in checkout");
  EXPECT_EQ(messages[0].description,
            "12 events since 09:00. Latest: cannot read 'id' of undefined");
  EXPECT_EQ(messages[0].footer, "quell " + MakeDelivery().row.idempotency_key);
  EXPECT_FALSE(messages[0].parses_mentions) << "an @everyone in an error text must ping no one";
  EXPECT_NE(messages[1].footer.find("follows message 1300000000000000001"), std::string::npos);
  EXPECT_NE(messages[2].footer.find("follows message 1300000000000000001"), std::string::npos);
  const json body = json::parse(receiver_.Requests().at(2).body);
  EXPECT_EQ(body["username"], "quell");
  EXPECT_EQ(body["embeds"][0]["color"], 0x2EB67D);  // resolved: green
  EXPECT_FALSE(body.contains("message_reference"));
}

// A webhook URL may carry a query already (thread_id, to post in a thread): wait joins it.
TEST_F(DiscordChannelTest, WaitJoinsAQueryTheUrlAlreadyHas) {
  const auto channel = Channel(receiver_.WebhookUrl() + "?thread_id=1250000000000000009");
  const SendOutcome sent = SendOnce(*channel, client_, MakeDelivery());
  ASSERT_EQ(sent.kind, Kind::kSent) << sent.error;
  EXPECT_EQ(sent.remote_message_id, "1300000000000000001") << "200 with the message: wait=true";
  ASSERT_EQ(receiver_.Messages().size(), 1u);
  EXPECT_EQ(receiver_.Messages()[0].thread_id, "1250000000000000009");
  EXPECT_EQ(AppendQueryParameter("https://d/api/webhooks/1/t", "wait=true"),
            "https://d/api/webhooks/1/t?wait=true");
  EXPECT_EQ(AppendQueryParameter("https://d/api/webhooks/1/t?thread_id=2", "wait=true"),
            "https://d/api/webhooks/1/t?thread_id=2&wait=true");
  EXPECT_EQ(AppendQueryParameter("https://d/x?", "wait=true"), "https://d/x?wait=true");
}

// Discord refuses content over 2000 characters and a description over 4096 (the stand-in
// answers 400 Invalid Form Body): quell cuts both, a group's list at a line end.
TEST_F(DiscordChannelTest, AGroupMessageAndLongTextsKeepDiscordsLimits) {
  core::Delivery group;
  group.row = core::MakeGroupRow("ops", "condition=model-answer", 1, TransitionKind::kOpen, 200,
                                 *core::ParseRfc3339("2026-12-02T09:00:00Z"));
  group.message.subject = std::string(2500, 's');
  for (int i = 0; i < 200; ++i) {
    group.message.body += "  - opened t" + std::to_string(i) + "/model-answer: \xC3\xA9" +
                          std::string(60, 'x') + "\n";
  }
  group.message.severity = "error";
  const SendOutcome sent = SendOnce(*Channel(), client_, group);
  ASSERT_EQ(sent.kind, Kind::kSent) << sent.error;
  const auto messages = receiver_.Messages();
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(Chars(messages[0].content), 2000u);
  EXPECT_LE(Chars(messages[0].description), 4096u);
  EXPECT_EQ(messages[0].description.substr(messages[0].description.size() - 4), "\n\xE2\x80\xA6");
  EXPECT_NE(messages[0].description.find("opened t0/"), std::string::npos);
}

TEST_F(DiscordChannelTest, A429IsThrottledForItsRetryAfterAndA5xxIsRetried) {
  const auto channel = Channel();
  receiver_.SetRetryAfter("3");
  receiver_.FailNext(Fault::kStatus429);
  SendOutcome outcome = SendOnce(*channel, client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kRetry);
  EXPECT_TRUE(outcome.throttled);
  ASSERT_TRUE(outcome.retry_after.has_value());
  EXPECT_EQ(*outcome.retry_after, std::chrono::seconds(3));
  EXPECT_EQ(outcome.error, "discord: HTTP 429: You are being rate limited.");

  // Without the header (a proxy dropped it) the body's retry_after counts, to the millisecond.
  core::HttpResponse limited;
  limited.status = 429;
  limited.body = R"({"message":"You are being rate limited.","retry_after":2.5,"global":false})";
  outcome = channel->Decode(MakeDelivery(), limited);
  EXPECT_TRUE(outcome.throttled);
  ASSERT_TRUE(outcome.retry_after.has_value());
  EXPECT_EQ(*outcome.retry_after, std::chrono::milliseconds(2500));

  receiver_.FailNext(Fault::kStatus500);
  outcome = SendOnce(*channel, client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kRetry);
  EXPECT_FALSE(outcome.throttled);
  EXPECT_TRUE(receiver_.Messages().empty());
  EXPECT_EQ(SendOnce(*channel, client_, MakeDelivery()).kind, Kind::kSent);
}

// Execute Webhook has no idempotency key (no nonce, unlike a bot's Create Message): a request
// Discord took whose answer was lost is posted again by the retry. Two messages, one outbox key.
TEST_F(DiscordChannelTest, ARetryAfterAHangIsASecondMessage) {
  const auto channel = Channel("", std::chrono::milliseconds(300));
  receiver_.FailNext(Fault::kHang);
  const SendOutcome hung = SendOnce(*channel, client_, MakeDelivery());
  EXPECT_EQ(hung.kind, Kind::kRetry);
  EXPECT_EQ(hung.error.find(kToken), std::string::npos) << hung.error;
  const SendOutcome retried = SendOnce(*channel, client_, MakeDelivery());
  ASSERT_EQ(retried.kind, Kind::kSent);
  const auto messages = receiver_.Messages();
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0].footer, messages[1].footer);
  EXPECT_EQ(retried.remote_message_id, messages[1].id);
  EXPECT_TRUE(receiver_.Requests().at(1).duplicate);
}

TEST_F(DiscordChannelTest, AWrongTokenIsPermanentAndNeverInTheError) {
  const std::string wrong = "WrongDiscordToken_000000000000000000000000000000";
  const std::string url =
      receiver_.BaseUrl() + "/api/webhooks/" + std::string(kWebhookId) + "/" + wrong;
  const SendOutcome outcome = SendOnce(*Channel(url), client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kPermanent);
  EXPECT_EQ(outcome.error, "discord: HTTP 401: code 50027: Invalid Webhook Token");

  core::HttpResponse echo;
  echo.status = 400;
  echo.body = R"({"message":"bad )" + wrong +
              R"(","code":50035,"errors":{"content":{"_errors":[)"
              R"({"code":"BASE_TYPE_MAX_LENGTH","message":"Must be 2000 or fewer in length."}]}}})";
  const SendOutcome refused = Channel(url)->Decode(MakeDelivery(), echo);
  EXPECT_EQ(refused.kind, Kind::kPermanent);
  EXPECT_EQ(refused.error.find(wrong), std::string::npos) << refused.error;
  EXPECT_NE(refused.error.find("content: Must be 2000 or fewer in length."), std::string::npos)
      << refused.error;
}

TEST(DiscordSettingsTest, CreateRefusesAUrlThatSetsWaitOrHasAFragment) {
  DiscordSettings settings;
  auto r = DiscordChannel::Create(settings);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "discord: url is required");
  settings.url = "https://discord.com/api/webhooks/1/t?wait=false";
  r = DiscordChannel::Create(settings);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("must not set wait"), std::string::npos);
  settings.url = "https://discord.com/api/webhooks/1/t#x";
  EXPECT_FALSE(DiscordChannel::Create(settings).ok());
  settings.url = "https://discord.com/api/webhooks/1/t?thread_id=5";
  EXPECT_TRUE(DiscordChannel::Create(settings).ok());
}

}  // namespace
}  // namespace quell::channels
