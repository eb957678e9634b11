// TwilioSmsChannel through CurlMultiClient against the loopback TwilioReceiver.
#include "quell/adapters/channels/sms/twilio_sms_channel.h"

#include <gtest/gtest.h>

#include "channel_test_support.h"
#include "twilio_receiver.h"

namespace quell::channels {
namespace twilio_sms_channel_test {

using core::SendOutcome;
using quell::testing::Fault;
using testing::MakeDelivery;
using testing::SendOnce;
using Kind = core::SendOutcome::Kind;

constexpr const char* kSid = "AC0123456789abcdef0123456789abcdef";
constexpr const char* kToken = "twilio_auth_token_42";

class TwilioSmsChannelTest : public ::testing::Test {
 protected:
  std::unique_ptr<TwilioSmsChannel> Channel(std::string token = kToken,
                                            core::Duration total = std::chrono::seconds(5)) {
    SmsSettings settings;
    settings.base_url = receiver_.BaseUrl();
    settings.account_sid = kSid;
    settings.auth_token = std::move(token);
    settings.from = "+15005550006";
    settings.to = "+15551234567";
    settings.timeouts.connect = std::min<core::Duration>(total, std::chrono::seconds(1));
    settings.timeouts.total = total;
    auto channel = TwilioSmsChannel::Create(settings);
    EXPECT_TRUE(channel.ok()) << channel.error().message;
    return std::move(*channel);
  }

  quell::testing::TwilioReceiver receiver_{kSid, kToken};
  curl::CurlMultiClient client_;
};

TEST_F(TwilioSmsChannelTest, PostsTheFormWithBasicAuthAndTheIdempotencyToken) {
  const core::Delivery delivery = MakeDelivery();
  const SendOutcome outcome = SendOnce(*Channel(), client_, delivery);
  ASSERT_EQ(outcome.kind, Kind::kSent) << outcome.error;
  EXPECT_TRUE(outcome.remote_message_id.starts_with("SM")) << outcome.remote_message_id;

  const auto messages = receiver_.Messages();
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0].sid, outcome.remote_message_id);
  EXPECT_EQ(messages[0].to, "+15551234567");
  EXPECT_EQ(messages[0].from, "+15005550006");
  EXPECT_EQ(messages[0].body, delivery.message.body);
  EXPECT_EQ(messages[0].idempotency_token, delivery.row.idempotency_key);
  const auto requests = receiver_.Requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].path, std::string("/2010-04-01/Accounts/") + kSid + "/Messages.json");
  EXPECT_EQ(core::FindHeader(requests[0].headers, "Content-Type"),
            "application/x-www-form-urlencoded");
  EXPECT_EQ(core::FindHeader(requests[0].headers, "I-Twilio-Idempotency-Token"),
            delivery.row.idempotency_key);
  EXPECT_EQ(requests[0].body.find(kToken), std::string::npos);
}

TEST_F(TwilioSmsChannelTest, AWrongTokenIsPermanentWithTwiliosCodeAndNoCredential) {
  const SendOutcome outcome = SendOnce(*Channel("wrong_token_value"), client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kPermanent);
  EXPECT_EQ(outcome.error, "twilio: HTTP 401: code 20003: Authenticate");
  EXPECT_TRUE(receiver_.Messages().empty());
}

TEST_F(TwilioSmsChannelTest, DecodesTwilioErrors) {
  const auto channel = Channel();
  receiver_.RejectNext(21211, "The 'To' number +1555 is not a valid phone number.");
  SendOutcome outcome = SendOnce(*channel, client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kPermanent);
  EXPECT_EQ(outcome.error,
            "twilio: HTTP 400: code 21211: The 'To' number +1555 is not a valid phone number.");

  receiver_.FailNext(Fault::kStatus429);
  outcome = SendOnce(*channel, client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kRetry);
  EXPECT_NE(outcome.error.find("code 20429"), std::string::npos);
  ASSERT_TRUE(outcome.retry_after.has_value());
  EXPECT_EQ(*outcome.retry_after, std::chrono::seconds(7));

  receiver_.FailNext(Fault::kStatus500);
  EXPECT_EQ(SendOnce(*channel, client_, MakeDelivery()).kind, Kind::kRetry);
  EXPECT_TRUE(receiver_.Messages().empty());
}

TEST_F(TwilioSmsChannelTest, ARetryAfterAHangSendsOneSmsWithTheSameSid) {
  const auto channel = Channel(kToken, std::chrono::milliseconds(300));
  const core::Delivery delivery = MakeDelivery();
  receiver_.FailNext(Fault::kHang);
  const SendOutcome hung = SendOnce(*channel, client_, delivery);
  EXPECT_EQ(hung.kind, Kind::kRetry);
  EXPECT_EQ(hung.error.find(kToken), std::string::npos);
  receiver_.ReleaseHung();
  const SendOutcome retried = SendOnce(*channel, client_, delivery);
  ASSERT_EQ(retried.kind, Kind::kSent) << retried.error;
  const auto messages = receiver_.Messages();
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0].sid, retried.remote_message_id);
  EXPECT_EQ(receiver_.DeliveredKeys().size(), 1u);
  EXPECT_EQ(receiver_.Requests().size(), 2u);
}

TEST_F(TwilioSmsChannelTest, CutsLongBodiesToTwiliosLimit) {
  core::Delivery delivery = MakeDelivery();
  delivery.message.body = std::string(3000, 'x');
  ASSERT_EQ(SendOnce(*Channel(), client_, delivery).kind, Kind::kSent);
  const auto messages = receiver_.Messages();
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_LE(messages[0].body.size(), 1600u);
  EXPECT_TRUE(messages[0].body.ends_with("\xE2\x80\xA6"));
}

TEST(SmsSettingsTest, CreateRefusesMissingSettings) {
  SmsSettings settings;
  settings.account_sid = kSid;
  settings.auth_token = kToken;
  settings.from = "+15005550006";
  auto r = TwilioSmsChannel::Create(settings);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "twilio: to is required");
  settings.to = "+15551234567";
  settings.account_sid = "AC/../x";
  r = TwilioSmsChannel::Create(settings);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("account_sid"), std::string::npos);
  settings.account_sid = kSid;
  settings.auth_token = "s3cr3t\r\nX: y";
  r = TwilioSmsChannel::Create(settings);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.find("s3cr3t"), std::string::npos);
}

TEST(BasicAuthorizationTest, EncodesUserAndPassword) {
  EXPECT_EQ(BasicAuthorization("Aladdin", "open sesame"), "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
}

}  // namespace twilio_sms_channel_test
}  // namespace quell::channels
