// GoogleChatChannel through CurlMultiClient against the loopback GoogleChatReceiver, which
// follows Google's documentation of incoming webhooks and spaces.messages.create.
#include "quell/adapters/channels/google_chat/google_chat_channel.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "channel_test_support.h"
#include "google_chat_receiver.h"
#include "quell/core/delivery/grouping.h"

namespace quell::channels {
namespace google_chat_channel_test {

using core::SendOutcome;
using core::TransitionKind;
using nlohmann::json;
using quell::testing::Fault;
using testing::MakeDelivery;
using testing::SendOnce;
using Kind = core::SendOutcome::Kind;

constexpr const char* kKey = "AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI";
constexpr const char* kToken = "Zq2xNoWq0Qm1e9tq-secret-token";

class GoogleChatChannelTest : public ::testing::Test {
 protected:
  std::unique_ptr<GoogleChatChannel> Channel(std::string url = "",
                                             core::Duration total = std::chrono::seconds(5)) {
    GoogleChatSettings settings;
    settings.url = url.empty() ? receiver_.WebhookUrl() : std::move(url);
    settings.timeouts.connect = std::min<core::Duration>(total, std::chrono::seconds(1));
    settings.timeouts.total = total;
    auto channel = GoogleChatChannel::Create(settings);
    EXPECT_TRUE(channel.ok()) << channel.error().message;
    return std::move(*channel);
  }

  static void ExpectNoCredential(const std::string& text) {
    EXPECT_EQ(text.find(kKey), std::string::npos) << text;
    EXPECT_EQ(text.find(kToken), std::string::npos) << text;
  }

  quell::testing::GoogleChatReceiver receiver_{kKey, kToken};
  curl::CurlMultiClient client_;
};

TEST_F(GoogleChatChannelTest, OpenRenotifyAndResolveShareTheIncidentsThread) {
  const auto channel = Channel();
  const SendOutcome open = SendOnce(*channel, client_, MakeDelivery(TransitionKind::kOpen, 1));
  ASSERT_EQ(open.kind, Kind::kSent) << open.error;
  EXPECT_EQ(open.remote_message_id, "spaces/AAAAquell/messages/m1");
  core::Delivery renotify = MakeDelivery(TransitionKind::kRenotify, 2);
  renotify.thread_remote_id = open.remote_message_id;
  const SendOutcome again = SendOnce(*channel, client_, renotify);
  ASSERT_EQ(again.kind, Kind::kSent) << again.error;
  core::Delivery resolve = MakeDelivery(TransitionKind::kResolve, 3);
  resolve.message.subject = "Resolved: TypeError in checkout";
  ASSERT_EQ(SendOnce(*channel, client_, resolve).kind, Kind::kSent);

  const auto messages = receiver_.Messages();
  ASSERT_EQ(messages.size(), 3u);
  for (const auto& m : messages) {
    EXPECT_EQ(m.thread_name, messages[0].thread_name) << "one thread per incident generation";
    EXPECT_EQ(m.thread_key, "checkout/errors:TypeError:3");
  }
  EXPECT_EQ(messages[0].text.substr(0, 23), "*TypeError in checkout*");
  EXPECT_NE(messages[0].text.find("12 events since 09:00"), std::string::npos);
  EXPECT_EQ(messages[2].text.substr(0, 33), "*Resolved: TypeError in checkout*");

  const auto requests = receiver_.Requests();
  ASSERT_EQ(requests.size(), 3u);
  // Each create carries its own requestId, derived from its outbox key.
  EXPECT_EQ(requests[0].idempotency_key,
            GoogleChatRequestId(MakeDelivery(TransitionKind::kOpen, 1).row.idempotency_key));
  EXPECT_NE(requests[0].idempotency_key, requests[1].idempotency_key);
  EXPECT_EQ(requests[0].idempotency_key.size(), 36u);  // UUID-shaped
  EXPECT_EQ(json::parse(requests[0].body)["thread"]["threadKey"], "checkout/errors:TypeError:3");

  // Another generation of the same key is another thread.
  core::Delivery next = MakeDelivery(TransitionKind::kOpen, 1);
  next.row.generation = 4;
  next.row.idempotency_key = "other-generation";
  ASSERT_EQ(SendOnce(*channel, client_, next).kind, Kind::kSent);
  EXPECT_NE(receiver_.Messages().back().thread_name, messages[0].thread_name);
}

TEST_F(GoogleChatChannelTest, AGroupMessageThreadsByTheGroupKey) {
  const auto channel = Channel();
  const core::WallTime t0 = *core::ParseRfc3339("2026-12-02T09:00:00Z");
  for (uint64_t sequence : {1u, 2u}) {
    core::Delivery d;
    d.row = core::MakeGroupRow("ops", "condition=model-answer", sequence,
                               sequence == 1 ? TransitionKind::kOpen : TransitionKind::kResolve,
                               sequence == 1 ? 2 : 0, t0);
    d.message =
        core::RenderedMessage{"[error] condition=model-answer: 2 opened", "2 members", "error"};
    const SendOutcome sent = SendOnce(*channel, client_, d);
    ASSERT_EQ(sent.kind, Kind::kSent) << sent.error;
  }
  const auto messages = receiver_.Messages();
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0].thread_key, "{group}:condition=model-answer");
  EXPECT_EQ(messages[1].thread_name, messages[0].thread_name);
}

TEST_F(GoogleChatChannelTest, A429IsThrottledWithItsRetryAfterAndA500IsRetried) {
  const auto channel = Channel();
  receiver_.SetRetryAfter("30");
  receiver_.FailNext(Fault::kStatus429);
  SendOutcome outcome = SendOnce(*channel, client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kRetry);
  EXPECT_TRUE(outcome.throttled);
  ASSERT_TRUE(outcome.retry_after.has_value());
  EXPECT_EQ(*outcome.retry_after, std::chrono::seconds(30));
  EXPECT_EQ(outcome.error,
            "google_chat: HTTP 429: RESOURCE_EXHAUSTED: Resource has been exhausted (e.g. check "
            "quota).");

  receiver_.FailNext(Fault::kStatus500);
  outcome = SendOnce(*channel, client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kRetry);
  EXPECT_FALSE(outcome.throttled);
  EXPECT_TRUE(receiver_.Messages().empty());
  // The retry then goes through, once.
  outcome = SendOnce(*channel, client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kSent) << outcome.error;
  EXPECT_EQ(receiver_.Messages().size(), 1u);
}

// Google Chat made the message but the answer was lost: the retry carries the same requestId,
// and Chat answers with the message it already made. Exactly one message, and the remote id is
// that message's.
TEST_F(GoogleChatChannelTest, ARetryAfterAHangReturnsTheSameMessage) {
  const auto channel = Channel("", std::chrono::milliseconds(300));
  receiver_.FailNext(Fault::kHang);
  const SendOutcome lost = SendOnce(*channel, client_, MakeDelivery());
  EXPECT_EQ(lost.kind, Kind::kRetry);
  ExpectNoCredential(lost.error);
  EXPECT_NE(lost.error.find("/v1/spaces/AAAAquell/messages"), std::string::npos) << lost.error;
  receiver_.ReleaseHung();
  const SendOutcome retry = SendOnce(*channel, client_, MakeDelivery());
  ASSERT_EQ(retry.kind, Kind::kSent) << retry.error;
  EXPECT_EQ(retry.remote_message_id, "spaces/AAAAquell/messages/m1");
  EXPECT_EQ(receiver_.Messages().size(), 1u);
  const auto requests = receiver_.Requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_TRUE(requests[1].duplicate);
  EXPECT_EQ(receiver_.DeliveredKeys().size(), 1u);
}

TEST_F(GoogleChatChannelTest, AWrongTokenIsPermanentAndTheUrlsCredentialsNeverReachAnError) {
  std::string url = receiver_.WebhookUrl();
  url.replace(url.find(kToken), std::string(kToken).size(), "wrong-token-0000");
  const SendOutcome outcome = SendOnce(*Channel(url), client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kPermanent);
  EXPECT_NE(outcome.error.find("UNAUTHENTICATED"), std::string::npos) << outcome.error;
  EXPECT_EQ(outcome.error.find("wrong-token-0000"), std::string::npos);

  core::HttpResponse echo;
  echo.status = 400;
  echo.body = std::string(R"({"error":{"code":400,"message":"bad token )") + kToken + " key " +
              kKey + R"(","status":"INVALID_ARGUMENT"}})";
  ExpectNoCredential(Channel()->Decode(MakeDelivery(), echo).error);

  // A URL nobody listens on: the transport error names the path, never the query.
  const SendOutcome refused =
      SendOnce(*Channel("http://127.0.0.1:1/v1/spaces/X/messages?key=" + std::string(kKey) +
                        "&token=" + kToken),
               client_, MakeDelivery());
  EXPECT_EQ(refused.kind, Kind::kRetry);
  ExpectNoCredential(refused.error);
}

TEST_F(GoogleChatChannelTest, ALongTextIsCutBelowChatsMessageLimit) {
  core::Delivery delivery = MakeDelivery();
  delivery.message.body = std::string(40000, 'x');
  const SendOutcome outcome = SendOnce(*Channel(), client_, delivery);
  ASSERT_EQ(outcome.kind, Kind::kSent) << outcome.error;
  const std::string text = receiver_.Messages().at(0).text;
  EXPECT_LE(text.size(), 30000u);
  EXPECT_EQ(text.substr(text.size() - 3), "\xE2\x80\xA6");
}

TEST(GoogleChatSettingsTest, CreateNeedsAnHttpUrl) {
  GoogleChatSettings settings;
  auto r = GoogleChatChannel::Create(settings);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "google_chat: url is required");
  settings.url = "chat.googleapis.com/v1/spaces/X/messages";
  r = GoogleChatChannel::Create(settings);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "google_chat: url must start with http:// or https://");
}

}  // namespace google_chat_channel_test
}  // namespace quell::channels
