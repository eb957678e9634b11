// Credentials out of the channels' error texts, whatever the credential.
#include <gtest/gtest.h>

#include <string>

#include "quell/adapters/channels/google_chat/google_chat_channel.h"
#include "quell/adapters/channels/sms/twilio_sms_channel.h"

namespace quell::channels {
namespace {

core::Delivery Open() {
  core::Delivery delivery;
  delivery.row.key = "db:1";
  delivery.row.generation = 2;
  delivery.row.channel = "sms";
  delivery.message = {"db:1 is failing", "db:1 is failing", "error"};
  return delivery;
}

// Found by the channel_answer fuzzer, whose Twilio auth token was "t": the error text replaced
// each occurrence of the token by "[redacted]" and searched again from the mark itself, so a
// token found inside "[redacted]" was replaced for ever (the dispatcher hung on the answer).
TEST(ErrorRedactionTest, ATokenThatIsPartOfTheMarkStillEnds) {
  SmsSettings settings;
  settings.account_sid = "AC0123";
  settings.auth_token = "act";
  settings.from = "+15005550006";
  settings.to = "+15005550001";
  auto twilio = TwilioSmsChannel::Create(settings);
  ASSERT_TRUE(twilio.ok()) << twilio.error().message;
  const core::SendOutcome outcome = (*twilio)->Decode(
      Open(), core::HttpResponse{401, {}, R"({"code":20003,"message":"bad token act"})"});
  EXPECT_EQ(outcome.kind, core::SendOutcome::Kind::kPermanent);
  EXPECT_EQ(outcome.error, "twilio: HTTP 401: code 20003: bad token [redacted]");
}

TEST(ErrorRedactionTest, AUrlKeyThatIsPartOfTheMarkStillEnds) {
  GoogleChatSettings settings;
  settings.url = "https://chat.googleapis.com/v1/spaces/x/messages?key=red";
  auto chat = GoogleChatChannel::Create(settings);
  ASSERT_TRUE(chat.ok()) << chat.error().message;
  const core::SendOutcome outcome = (*chat)->Decode(
      Open(), core::HttpResponse{400, {}, R"({"error":{"code":400,"message":"key red"}})"});
  EXPECT_EQ(outcome.kind, core::SendOutcome::Kind::kPermanent);
  EXPECT_EQ(outcome.error.find("red "), std::string::npos) << outcome.error;
  EXPECT_NE(outcome.error.find("[redacted]"), std::string::npos) << outcome.error;
}

}  // namespace
}  // namespace quell::channels
