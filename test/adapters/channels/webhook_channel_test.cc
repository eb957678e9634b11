// WebhookChannel through CurlMultiClient against the loopback WebhookReceiver.
#include "quell/adapters/channels/webhook/webhook_channel.h"

#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "channel_test_support.h"
#include "quell/adapters/channels/webhook/webhook_signature.h"
#include "quell/core/delivery/dead_letter.h"
#include "webhook_receiver.h"

namespace quell::channels {
namespace {

using core::SendOutcome;
using nlohmann::json;
using testing::MakeDelivery;
using testing::Read;
using testing::SendOnce;
using testing::TestNow;
using Kind = core::SendOutcome::Kind;

constexpr const char* kSecret = "whsec_0123456789abcdef";

class WebhookChannelTest : public ::testing::Test {
 protected:
  void SetUp() override { receiver_.SetNow(TestNow()); }

  std::unique_ptr<WebhookChannel> Channel(std::string secret = kSecret,
                                          core::Duration total = std::chrono::seconds(5)) {
    WebhookSettings settings;
    settings.url = receiver_.Url();
    settings.secret = std::move(secret);
    settings.timeouts.connect = std::min<core::Duration>(total, std::chrono::seconds(1));
    settings.timeouts.total = total;
    auto channel = WebhookChannel::Create(settings);
    EXPECT_TRUE(channel.ok()) << channel.error().message;
    return std::move(*channel);
  }

  quell::testing::WebhookReceiver receiver_{kSecret};
  curl::CurlMultiClient client_;
};

TEST_F(WebhookChannelTest, PostsTheVersionOneBodyWithSignatureAndIdempotencyKey) {
  const auto channel = Channel();
  const core::Delivery delivery = MakeDelivery();
  const SendOutcome outcome = SendOnce(*channel, client_, delivery);
  ASSERT_EQ(outcome.kind, Kind::kSent) << outcome.error;

  const auto requests = receiver_.Requests();
  ASSERT_EQ(requests.size(), 1u);
  const auto& r = requests[0];
  EXPECT_TRUE(r.authorized);
  EXPECT_EQ(core::FindHeader(r.headers, "Idempotency-Key"), delivery.row.idempotency_key);
  EXPECT_EQ(core::FindHeader(r.headers, "X-Quell-Timestamp"), "1796000000");
  EXPECT_EQ(core::FindHeader(r.headers, "Content-Type"), "application/json");
  const json body = json::parse(r.body);
  EXPECT_EQ(body["version"], 1);
  EXPECT_EQ(body["idempotency_key"], delivery.row.idempotency_key);
  EXPECT_EQ(body["key"], "checkout/errors:TypeError");
  EXPECT_EQ(body["transition"], "open");
  EXPECT_EQ(body["generation"], 3);
  EXPECT_EQ(body["incident_version"], 1);
  EXPECT_EQ(body["incident"]["event_count"], 12);
  EXPECT_EQ(body["message"]["subject"], "TypeError in checkout");
  EXPECT_EQ(body["message"]["severity"], "critical");
}

TEST_F(WebhookChannelTest, AnIncidentMessageSaysItsKind) {
  const auto channel = Channel();
  ASSERT_EQ(SendOnce(*channel, client_, MakeDelivery()).kind, Kind::kSent);
  EXPECT_EQ(json::parse(receiver_.Requests().at(0).body)["kind"], "incident");
}

// A dead-letter notice is about outbox rows: its own kind, no incident, key or transition.
TEST_F(WebhookChannelTest, ADeadLetterNoticeIsItsOwnKindWithoutATransition) {
  const auto channel = Channel();
  core::Delivery delivery;
  const core::BudgetWindow window = core::DeadLetterWindowAt(TestNow(), std::chrono::minutes(5));
  delivery.row = core::MakeDeadLetterRow("ops-hook", window, TestNow());
  core::OutboxRow dead = MakeDelivery().row;
  dead.status = core::OutboxStatus::kDead;
  dead.attempts = 8;
  dead.last_error = "HTTP 500";
  dead.updated_at = TestNow();
  const std::vector<core::OutboxRow> rows = {dead};
  delivery.row.payload = core::DeadLetterPayload(delivery.row, rows);
  delivery.message = core::DeadLetterMessage(delivery.row, rows);
  Read(delivery);
  ASSERT_EQ(SendOnce(*channel, client_, delivery).kind, Kind::kSent);

  const json body = json::parse(receiver_.Requests().at(0).body);
  EXPECT_EQ(body["kind"], "dead_letter");
  EXPECT_FALSE(body.contains("transition")) << body.dump();
  EXPECT_FALSE(body.contains("incident"));
  EXPECT_FALSE(body.contains("key"));
  EXPECT_EQ(body["idempotency_key"], delivery.row.idempotency_key);
  EXPECT_EQ(body["dead_letter"]["count"], 1);
  EXPECT_EQ(body["dead_letter"]["rows"][0]["key"], "checkout/errors:TypeError");
  EXPECT_EQ(body["dead_letter"]["rows"][0]["attempts"], 8);
  EXPECT_EQ(body["dead_letter"]["rows"][0]["last_error"], "HTTP 500");
  EXPECT_EQ(body["message"]["severity"], "critical");
  EXPECT_NE(body["message"]["subject"].get<std::string>().find("could not deliver 1 message"),
            std::string::npos);
}

TEST_F(WebhookChannelTest, TheSignatureVerifiesOnlyWithTheRightSecretAndWithinTolerance) {
  const auto request = Channel()->Encode(MakeDelivery(), TestNow());
  ASSERT_TRUE(request.ok());
  const std::string timestamp(core::FindHeader(request->headers, "X-Quell-Timestamp"));
  const std::string signature(core::FindHeader(request->headers, "X-Quell-Signature"));
  ASSERT_TRUE(signature.starts_with("v1="));
  EXPECT_TRUE(VerifyWebhookSignature(kSecret, timestamp, signature, request->body, TestNow()).ok());
  const auto wrong = VerifyWebhookSignature("another_secret_value", timestamp, signature,
                                            request->body, TestNow());
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().code, core::ErrorCode::kPermissionDenied);
  EXPECT_EQ(wrong.error().message.find(signature.substr(3)), std::string::npos);
  EXPECT_FALSE(
      VerifyWebhookSignature(kSecret, timestamp, signature, request->body + " ", TestNow()).ok());
  EXPECT_FALSE(VerifyWebhookSignature(kSecret, timestamp, signature, request->body,
                                      TestNow() + std::chrono::minutes(6))
                   .ok());
  // Rotation: a list holding the valid signature among others verifies.
  EXPECT_TRUE(
      VerifyWebhookSignature(kSecret, timestamp, "v1=00ff, " + signature, request->body, TestNow())
          .ok());
  EXPECT_FALSE(VerifyWebhookSignature(kSecret, "", signature, request->body, TestNow()).ok());
}

TEST_F(WebhookChannelTest, AReceiverWithAnotherSecretRefusesPermanently) {
  const SendOutcome outcome =
      SendOnce(*Channel("a_different_secret_0123"), client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kPermanent);
  EXPECT_NE(outcome.error.find("HTTP 401"), std::string::npos) << outcome.error;
  EXPECT_EQ(outcome.error.find("a_different_secret_0123"), std::string::npos);
  EXPECT_TRUE(receiver_.DeliveredKeys().empty());
}

TEST_F(WebhookChannelTest, DecodesServerErrorsAndRateLimitsAsRetries) {
  const auto channel = Channel();
  receiver_.FailNext(quell::testing::Fault::kStatus500);
  const SendOutcome failed = SendOnce(*channel, client_, MakeDelivery());
  EXPECT_EQ(failed.kind, Kind::kRetry);
  EXPECT_NE(failed.error.find("webhook: HTTP 500"), std::string::npos) << failed.error;
  EXPECT_FALSE(failed.retry_after.has_value());

  receiver_.SetRetryAfter("42");
  receiver_.FailNext(quell::testing::Fault::kStatus429);
  const SendOutcome limited = SendOnce(*channel, client_, MakeDelivery());
  EXPECT_EQ(limited.kind, Kind::kRetry);
  ASSERT_TRUE(limited.retry_after.has_value());
  EXPECT_EQ(*limited.retry_after, std::chrono::seconds(42));

  EXPECT_EQ(SendOnce(*channel, client_, MakeDelivery()).kind, Kind::kSent);
  EXPECT_EQ(receiver_.DeliveredKeys().size(), 1u);
}

TEST_F(WebhookChannelTest, ARejectedRequestIsPermanent) {
  core::HttpResponse response;
  response.status = 400;
  response.body = "bad body\nsecond line";
  const SendOutcome outcome = Channel()->Decode(MakeDelivery(), response);
  EXPECT_EQ(outcome.kind, Kind::kPermanent);
  EXPECT_EQ(outcome.error, "webhook: HTTP 400: bad body");
}

TEST_F(WebhookChannelTest, AHangIsATimeoutRetryAndTheRetryIsDeliveredOnce) {
  const auto channel = Channel(kSecret, std::chrono::milliseconds(300));
  const core::Delivery delivery = MakeDelivery();
  receiver_.FailNext(quell::testing::Fault::kHang);
  const SendOutcome hung = SendOnce(*channel, client_, delivery);
  EXPECT_EQ(hung.kind, Kind::kRetry);
  EXPECT_NE(hung.error.find("imed out"), std::string::npos) << hung.error;
  // The receiver had it all along: the retry carries the same key and is recognised.
  const SendOutcome retried =
      SendOnce(*channel, client_, delivery, TestNow() + std::chrono::seconds(30));
  EXPECT_EQ(retried.kind, Kind::kSent) << retried.error;
  const auto requests = receiver_.Requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].idempotency_key, requests[1].idempotency_key);
  EXPECT_TRUE(requests[1].duplicate);
  EXPECT_EQ(receiver_.DeliveredKeys(), std::set<std::string>{delivery.row.idempotency_key});
}

TEST_F(WebhookChannelTest, AResetConnectionIsARetry) {
  receiver_.FailNext(quell::testing::Fault::kReset);
  const SendOutcome outcome = SendOnce(*Channel(), client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kRetry) << outcome.error;
  EXPECT_EQ(receiver_.Requests().size(), 1u);
  EXPECT_TRUE(receiver_.DeliveredKeys().empty());
}

TEST_F(WebhookChannelTest, EachTransitionIsItsOwnMessage) {
  const auto channel = Channel();
  EXPECT_EQ(SendOnce(*channel, client_, MakeDelivery(core::TransitionKind::kOpen, 1)).kind,
            Kind::kSent);
  EXPECT_EQ(SendOnce(*channel, client_, MakeDelivery(core::TransitionKind::kResolve, 4)).kind,
            Kind::kSent);
  EXPECT_EQ(receiver_.DeliveredKeys().size(), 2u);
}

TEST(WebhookSettingsTest, CreateRefusesBadSettingsWithoutQuotingTheSecret) {
  WebhookSettings settings;
  settings.url = "ftp://example.com/hook";
  settings.secret = "0123456789abcdef";
  auto r = WebhookChannel::Create(settings);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, core::ErrorCode::kInvalidArgument);
  EXPECT_NE(r.error().message.find("url"), std::string::npos);

  settings.url = "https://example.com/hook";
  settings.secret = "short";
  r = WebhookChannel::Create(settings);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("secret"), std::string::npos);
  EXPECT_EQ(r.error().message.find("short"), std::string::npos);

  settings.secret = "0123456789abcdef";
  settings.timeouts.connect = std::chrono::seconds(20);
  EXPECT_FALSE(WebhookChannel::Create(settings).ok());
  settings.timeouts.connect = std::chrono::seconds(1);
  EXPECT_TRUE(WebhookChannel::Create(settings).ok());
}

// signing: off or when_set without a key: the same body and idempotency key, no signature
// (an empty or made-up one would only teach receivers to ignore the header).
TEST(WebhookSettingsTest, AnUnsignedChannelSendsNoSignatureHeader) {
  WebhookSettings settings;
  settings.url = "https://example.com/hook";
  settings.signing = WebhookSigning::kOff;
  auto channel = WebhookChannel::Create(settings);
  ASSERT_TRUE(channel.ok()) << channel.error().message;
  const core::Delivery delivery = MakeDelivery();
  auto request = (*channel)->Encode(delivery, TestNow());
  ASSERT_TRUE(request.ok()) << request.error().message;
  EXPECT_EQ(core::FindHeader(request->headers, "X-Quell-Signature"), "");
  EXPECT_EQ(core::FindHeader(request->headers, "Idempotency-Key"), delivery.row.idempotency_key);
  EXPECT_EQ(json::parse(request->body)["version"], 1);

  settings.signing = WebhookSigning::kRequired;  // signing with no key is still refused
  EXPECT_FALSE(WebhookChannel::Create(settings).ok());
}

// A payload that is no snapshot is refused when the dispatcher reads it (jsonl's
// message_codec_test), before any channel; a delivery never read is refused here too.
TEST(WebhookBodyTest, ADeliveryWhosePayloadWasNotReadCannotBeEncoded) {
  core::Delivery delivery = MakeDelivery();
  delivery.content = core::Message{};
  const auto body = WebhookBody(delivery);
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.error().code, core::ErrorCode::kInvalidArgument);
}

TEST(WebhookBodyTest, EmbedsThePayloadAsItIsAndEscapesTheMessage) {
  core::Delivery delivery = MakeDelivery();
  delivery.row.payload = R"({"key":"k \"q\"","status":"open","evidence":[{"title":"\u00e9"}]})";
  delivery.message.subject = "bad \xff byte";
  delivery.message.body = "line\nnext \"quoted\"";
  const auto body = WebhookBody(Read(delivery));
  ASSERT_TRUE(body.ok()) << body.error().message;
  EXPECT_NE(body->find(R"("incident":)" + delivery.row.payload + ","), std::string::npos);
  const json parsed = json::parse(*body);
  EXPECT_EQ(parsed["incident"], json::parse(delivery.row.payload));
  EXPECT_EQ(parsed["message"]["subject"], "bad \xef\xbf\xbd byte");
  EXPECT_EQ(parsed["message"]["body"], delivery.message.body);
  EXPECT_EQ(parsed["key"], delivery.row.key);
  EXPECT_EQ(parsed["generation"], delivery.row.generation);
  EXPECT_EQ(parsed["incident_version"], delivery.row.version);
  EXPECT_EQ(parsed.size(), 9u);  // with "kind"
}

TEST(WebhookSignatureTest, MatchesAKnownHmacSha256) {
  // RFC 4231 test case 2.
  EXPECT_EQ(HmacSha256Hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_EQ(WebhookSignature("Jefe", 12, "body"), "v1=" + HmacSha256Hex("Jefe", "12.body"));
}

// HmacSha256Hex keeps a keyed context per thread for its last few keys: each use starts a new
// message under the right key, however the keys come and go.
TEST(WebhookSignatureTest, KeepsEachKeysResultAcrossCallsAndThreads) {
  struct Vector {
    std::string key;
    std::string data;
    std::string hex;
  };
  const std::vector<Vector> vectors = {
      // RFC 4231 test cases 1, 2, 6 (a key longer than the block) and 7.
      {std::string(20, '\x0b'), "Hi There",
       "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"},
      {"Jefe", "what do ya want for nothing?",
       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
      {std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First",
       "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
      {std::string(131, '\xaa'),
       "This is a test using a larger than block-size key and a larger than block-size data. "
       "The key needs to be hashed before being used by the HMAC algorithm.",
       "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"},
      {"", "", "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad"},
      {"key", "The quick brown fox jumps over the lazy dog",
       "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8"},
  };
  const auto check_all = [&vectors](int rounds) {
    int wrong = 0;
    for (int round = 0; round < rounds; ++round) {
      for (const Vector& v : vectors) wrong += HmacSha256Hex(v.key, v.data) == v.hex ? 0 : 1;
    }
    return wrong;
  };
  for (const Vector& v : vectors) EXPECT_EQ(HmacSha256Hex(v.key, v.data), v.hex) << v.data;
  EXPECT_EQ(check_all(3), 0);  // six keys through a cache of fewer
  std::vector<int> wrong(4, -1);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < wrong.size(); ++t) {
    threads.emplace_back([&, t] { wrong[t] = check_all(50); });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong, std::vector<int>(4, 0));
}

}  // namespace
}  // namespace quell::channels
