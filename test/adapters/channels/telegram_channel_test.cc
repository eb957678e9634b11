// TelegramChannel through CurlMultiClient against the loopback TelegramReceiver, which follows
// core.telegram.org/bots/api (sendMessage, ReplyParameters, ResponseParameters).
#include "quell/adapters/channels/telegram/telegram_channel.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "channel_test_support.h"
#include "quell/core/delivery/grouping.h"
#include "telegram_receiver.h"

namespace quell::channels {
namespace telegram_channel_test {

using core::SendOutcome;
using core::TransitionKind;
using nlohmann::json;
using quell::testing::Fault;
using testing::MakeDelivery;
using testing::SendOnce;
using Kind = core::SendOutcome::Kind;

constexpr const char* kToken = "7000000001:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw";
constexpr const char* kChat = "-1001234567890";

class TelegramChannelTest : public ::testing::Test {
 protected:
  std::unique_ptr<TelegramChannel> Channel(std::string token = kToken, std::string chat = kChat,
                                           core::Duration total = std::chrono::seconds(5)) {
    TelegramSettings settings;
    settings.api_url = receiver_.ApiUrl() + "/";
    settings.token = std::move(token);
    settings.chat_id = std::move(chat);
    settings.timeouts.connect = std::min<core::Duration>(total, std::chrono::seconds(1));
    settings.timeouts.total = total;
    auto channel = TelegramChannel::Create(settings);
    EXPECT_TRUE(channel.ok()) << channel.error().message;
    return std::move(*channel);
  }

  quell::testing::TelegramReceiver receiver_{kToken, kChat};
  curl::CurlMultiClient client_;
};

TEST_F(TelegramChannelTest, RenotifiesAndResolvesReplyToTheOpen) {
  const auto channel = Channel();
  const SendOutcome open = SendOnce(*channel, client_, MakeDelivery(TransitionKind::kOpen, 1));
  ASSERT_EQ(open.kind, Kind::kSent) << open.error;
  EXPECT_EQ(open.remote_message_id, "101");
  core::Delivery renotify = MakeDelivery(TransitionKind::kRenotify, 2);
  renotify.thread_remote_id = open.remote_message_id;
  ASSERT_EQ(SendOnce(*channel, client_, renotify).kind, Kind::kSent);
  core::Delivery resolve = MakeDelivery(TransitionKind::kResolve, 3);
  resolve.message.subject = "Resolved: TypeError in checkout";
  resolve.thread_remote_id = open.remote_message_id;
  const SendOutcome resolved = SendOnce(*channel, client_, resolve);
  ASSERT_EQ(resolved.kind, Kind::kSent) << resolved.error;
  EXPECT_EQ(resolved.remote_message_id, "103");

  const auto messages = receiver_.Messages();
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_EQ(messages[0].reply_to, 0);
  EXPECT_EQ(messages[1].reply_to, 101);
  EXPECT_EQ(messages[2].reply_to, 101);
  EXPECT_EQ(
      messages[0].text,
      "TypeError in checkout\n\n12 events since 09:00. Latest: cannot read 'id' of undefined");
  EXPECT_EQ(messages[2].text.substr(0, 31), "Resolved: TypeError in checkout");

  const auto requests = receiver_.Requests();
  ASSERT_EQ(requests.size(), 3u);
  const json first = json::parse(requests[0].body);
  EXPECT_EQ(first["chat_id"], -1001234567890);  // a numeric id travels as a number
  EXPECT_FALSE(first.contains("parse_mode"));   // plain text: nothing to escape
  const json reply = json::parse(requests[1].body)["reply_parameters"];
  EXPECT_EQ(reply["message_id"], 101);
  EXPECT_EQ(reply["allow_sending_without_reply"], true);
  EXPECT_EQ(requests[0].body.find(kToken), std::string::npos);
}

TEST_F(TelegramChannelTest, AReplyToADeletedOpenStillGoesOut) {
  core::Delivery resolve = MakeDelivery(TransitionKind::kResolve, 3);
  resolve.thread_remote_id = "999";  // Telegram no longer has it
  ASSERT_EQ(SendOnce(*Channel(), client_, resolve).kind, Kind::kSent);
  ASSERT_EQ(receiver_.Messages().size(), 1u);
  EXPECT_EQ(receiver_.Messages()[0].reply_to, 0);
}

TEST_F(TelegramChannelTest, AGroupMessageIsOneMessage) {
  const core::WallTime t0 = *core::ParseRfc3339("2026-12-02T09:00:00Z");
  core::Delivery d;
  d.row = core::MakeGroupRow("ops", "condition=model-answer", 1, TransitionKind::kOpen, 2, t0);
  d.message =
      core::RenderedMessage{"[error] condition=model-answer: 2 opened", "2 members", "error"};
  ASSERT_EQ(SendOnce(*Channel(), client_, d).kind, Kind::kSent);
  ASSERT_EQ(receiver_.Messages().size(), 1u);
  EXPECT_EQ(receiver_.Messages()[0].text, "[error] condition=model-answer: 2 opened\n\n2 members");
}

TEST_F(TelegramChannelTest, FloodControlsRetryAfterIsHonouredAndA500IsRetried) {
  const auto channel = Channel();
  receiver_.SetFloodWait(12);
  receiver_.FailNext(Fault::kStatus429);
  SendOutcome outcome = SendOnce(*channel, client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kRetry);
  EXPECT_TRUE(outcome.throttled);
  ASSERT_TRUE(outcome.retry_after.has_value()) << "from parameters.retry_after: no header";
  EXPECT_EQ(*outcome.retry_after, std::chrono::seconds(12));
  EXPECT_EQ(outcome.error, "telegram: HTTP 429: Too Many Requests: retry after 12");

  receiver_.FailNext(Fault::kStatus500);
  outcome = SendOnce(*channel, client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kRetry);
  EXPECT_FALSE(outcome.throttled);
  EXPECT_TRUE(receiver_.Messages().empty());
  EXPECT_EQ(SendOnce(*channel, client_, MakeDelivery()).kind, Kind::kSent);
  EXPECT_EQ(receiver_.Messages().size(), 1u);
}

// Telegram has no idempotency key: a send whose answer was lost, sent again, is a second
// message in the chat.
TEST_F(TelegramChannelTest, ARetryAfterAHangIsASecondMessage) {
  const auto channel = Channel(kToken, kChat, std::chrono::milliseconds(300));
  receiver_.FailNext(Fault::kHang);
  const SendOutcome lost = SendOnce(*channel, client_, MakeDelivery());
  EXPECT_EQ(lost.kind, Kind::kRetry);
  // The transport error names the URL with the token cut out.
  EXPECT_EQ(lost.error.find(kToken), std::string::npos) << lost.error;
  EXPECT_EQ(lost.error.find("AAHdqTcvCH1v"), std::string::npos) << lost.error;
  EXPECT_NE(lost.error.find("/bot[redacted]/sendMessage"), std::string::npos) << lost.error;
  receiver_.ReleaseHung();
  const SendOutcome retry = SendOnce(*channel, client_, MakeDelivery());
  ASSERT_EQ(retry.kind, Kind::kSent) << retry.error;
  const auto messages = receiver_.Messages();
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0].text, messages[1].text);
  EXPECT_EQ(retry.remote_message_id, "102");
}

TEST_F(TelegramChannelTest, TheTokenNeverReachesAnError) {
  SendOutcome outcome = SendOnce(*Channel("7000000001:AAwrongwrongwrong"), client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kPermanent);
  EXPECT_EQ(outcome.error, "telegram: HTTP 401: Unauthorized");

  core::HttpResponse echo;
  echo.status = 400;
  echo.body = std::string(R"({"ok":false,"error_code":400,"description":"bad )") + kToken + R"("})";
  outcome = Channel()->Decode(MakeDelivery(), echo);
  EXPECT_EQ(outcome.kind, Kind::kPermanent);
  EXPECT_EQ(outcome.error.find(kToken), std::string::npos) << outcome.error;

  TelegramSettings nobody;
  nobody.api_url = "http://127.0.0.1:1";
  nobody.token = kToken;
  nobody.chat_id = kChat;
  const SendOutcome refused = SendOnce(**TelegramChannel::Create(nobody), client_, MakeDelivery());
  EXPECT_EQ(refused.kind, Kind::kRetry);
  EXPECT_EQ(refused.error.find(kToken), std::string::npos) << refused.error;
}

TEST_F(TelegramChannelTest, AnUnknownChatIsPermanentAndAChannelNameStaysAString) {
  SendOutcome outcome = SendOnce(*Channel(kToken, "-100999"), client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kPermanent);
  EXPECT_EQ(outcome.error, "telegram: HTTP 400: Bad Request: chat not found");
  outcome = SendOnce(*Channel(kToken, "@quell_alerts"), client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kPermanent);
  EXPECT_EQ(json::parse(receiver_.Requests().back().body)["chat_id"], "@quell_alerts");
}

TEST_F(TelegramChannelTest, ALongTextIsCutTo4096Utf16Units) {
  core::Delivery delivery = MakeDelivery();
  std::string body;
  for (int i = 0; i < 3000; ++i) body += "\xF0\x9F\x9A\xA8";  // U+1F6A8: two UTF-16 units
  delivery.message.body = body;
  const SendOutcome outcome = SendOnce(*Channel(), client_, delivery);
  ASSERT_EQ(outcome.kind, Kind::kSent) << outcome.error;
  EXPECT_EQ(CutToUtf16Units("abcdef", 6), "abcdef");
  EXPECT_EQ(CutToUtf16Units("abcdefg", 6), "abcde\xE2\x80\xA6");
  EXPECT_EQ(CutToUtf16Units("ab\xF0\x9F\x9A\xA8"
                            "cd",
                            4),
            "ab\xE2\x80\xA6");
}

TEST(TelegramSettingsTest, CreateNeedsATokenAndAChat) {
  TelegramSettings settings;
  settings.chat_id = kChat;
  auto r = TelegramChannel::Create(settings);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "telegram: token is required");
  settings.token = "123:abc/../x";
  r = TelegramChannel::Create(settings);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.find("abc"), std::string::npos);
  settings.token = kToken;
  settings.chat_id.clear();
  r = TelegramChannel::Create(settings);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "telegram: chat_id is required");
}

}  // namespace telegram_channel_test
}  // namespace quell::channels
