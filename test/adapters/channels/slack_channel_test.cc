// SlackChannel (bot-token and incoming-webhook modes) through CurlMultiClient against the
// loopback SlackReceiver.
#include "quell/adapters/channels/slack/slack_channel.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "channel_test_support.h"
#include "slack_receiver.h"

namespace quell::channels {
namespace {

using core::SendOutcome;
using core::TransitionKind;
using nlohmann::json;
using quell::testing::Fault;
using testing::MakeDelivery;
using testing::SendOnce;
using Kind = core::SendOutcome::Kind;

constexpr const char* kToken = "xoxb-test-0123456789";

class SlackChannelTest : public ::testing::Test {
 protected:
  std::unique_ptr<SlackChannel> Bot(bool resolve_updates_root = true, std::string token = kToken) {
    SlackSettings settings;
    settings.mode = SlackSettings::Mode::kBotToken;
    settings.api_base_url = receiver_.ApiBaseUrl();
    settings.token = std::move(token);
    settings.channel = "C0ALERTS";
    settings.resolve_updates_root = resolve_updates_root;
    auto channel = SlackChannel::Create(settings);
    EXPECT_TRUE(channel.ok()) << channel.error().message;
    return std::move(*channel);
  }
  std::unique_ptr<SlackChannel> Hook() {
    SlackSettings settings;
    settings.webhook_url = receiver_.WebhookUrl();
    auto channel = SlackChannel::Create(settings);
    EXPECT_TRUE(channel.ok()) << channel.error().message;
    return std::move(*channel);
  }

  quell::testing::SlackReceiver receiver_{kToken};
  curl::CurlMultiClient client_;
};

TEST_F(SlackChannelTest, ThreadsRenotifiesUnderTheOpenAndUpdatesTheRootOnResolve) {
  const auto channel = Bot();
  const SendOutcome open = SendOnce(*channel, client_, MakeDelivery(TransitionKind::kOpen, 1));
  ASSERT_EQ(open.kind, Kind::kSent) << open.error;
  ASSERT_FALSE(open.remote_message_id.empty());

  core::Delivery renotify = MakeDelivery(TransitionKind::kRenotify, 2);
  renotify.thread_remote_id = open.remote_message_id;
  const SendOutcome again = SendOnce(*channel, client_, renotify);
  ASSERT_EQ(again.kind, Kind::kSent) << again.error;
  EXPECT_NE(again.remote_message_id, open.remote_message_id);

  core::Delivery resolve = MakeDelivery(TransitionKind::kResolve, 3);
  resolve.message.subject = "Resolved: TypeError in checkout";
  resolve.thread_remote_id = open.remote_message_id;
  const SendOutcome resolved = SendOnce(*channel, client_, resolve);
  ASSERT_EQ(resolved.kind, Kind::kSent) << resolved.error;
  EXPECT_EQ(resolved.remote_message_id, open.remote_message_id);

  const auto messages = receiver_.Messages();
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0].ts, open.remote_message_id);
  EXPECT_EQ(messages[0].channel, "C0ALERTS");
  EXPECT_EQ(messages[0].updates, 1);
  EXPECT_EQ(messages[0].text, "Resolved: TypeError in checkout");
  EXPECT_EQ(messages[1].thread_ts, open.remote_message_id);
  const auto requests = receiver_.Requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0].path, "/api/chat.postMessage");
  EXPECT_EQ(requests[2].path, "/api/chat.update");
  EXPECT_EQ(core::FindHeader(requests[0].headers, "Authorization"),
            std::string("Bearer ") + kToken);
  EXPECT_EQ(requests[0].body.find(kToken), std::string::npos) << "the token is a header only";
  EXPECT_EQ(messages[0].idempotency_key, MakeDelivery().row.idempotency_key);
}

TEST_F(SlackChannelTest, ResolvesAsAThreadReplyWhenAskedOrWithoutARoot) {
  const auto channel = Bot(/*resolve_updates_root=*/false);
  core::Delivery resolve = MakeDelivery(TransitionKind::kResolve, 3);
  resolve.thread_remote_id = "1700000000.999999";
  ASSERT_EQ(SendOnce(*channel, client_, resolve).kind, Kind::kSent);
  resolve.thread_remote_id.clear();
  ASSERT_EQ(SendOnce(*Bot(), client_, resolve).kind, Kind::kSent);
  const auto messages = receiver_.Messages();
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0].thread_ts, "1700000000.999999");
  EXPECT_EQ(messages[1].thread_ts, "");  // no root known: a new top-level message
  for (const auto& r : receiver_.Requests()) EXPECT_EQ(r.path, "/api/chat.postMessage");
}

TEST_F(SlackChannelTest, DecodesSlackErrors) {
  const auto channel = Bot();
  receiver_.ErrorNext("channel_not_found");
  SendOutcome outcome = SendOnce(*channel, client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kPermanent);
  EXPECT_EQ(outcome.error, "slack: HTTP 200: channel_not_found");

  receiver_.ErrorNext("ratelimited");
  outcome = SendOnce(*channel, client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kRetry);
  EXPECT_TRUE(outcome.throttled) << "timed by the throttle budget, not counted as an attempt";

  receiver_.SetRetryAfter("30");
  receiver_.FailNext(Fault::kStatus429);
  outcome = SendOnce(*channel, client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kRetry);
  EXPECT_EQ(outcome.error, "slack: HTTP 429: ratelimited");
  EXPECT_TRUE(outcome.throttled);
  ASSERT_TRUE(outcome.retry_after.has_value());
  EXPECT_EQ(*outcome.retry_after, std::chrono::seconds(30));

  receiver_.FailNext(Fault::kStatus500);
  outcome = SendOnce(*channel, client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kRetry);
  EXPECT_FALSE(outcome.throttled);

  core::Delivery update = MakeDelivery(TransitionKind::kResolve, 3);
  update.thread_remote_id = "1699999999.000001";  // Slack never saw it
  outcome = SendOnce(*channel, client_, update);
  EXPECT_EQ(outcome.kind, Kind::kPermanent);
  EXPECT_NE(outcome.error.find("message_not_found"), std::string::npos);
  EXPECT_TRUE(receiver_.Messages().empty());
}

TEST_F(SlackChannelTest, AWrongTokenIsPermanentAndNeverInTheError) {
  const SendOutcome outcome = SendOnce(*Bot(true, "xoxb-wrong-token"), client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kPermanent);
  EXPECT_NE(outcome.error.find("invalid_auth"), std::string::npos);
  EXPECT_EQ(outcome.error.find("xoxb"), std::string::npos);
}

TEST_F(SlackChannelTest, AnAnswerWithoutSlacksEnvelopeIsARetry) {
  core::HttpResponse response;
  response.status = 200;
  response.body = "<html>proxy</html>";
  EXPECT_EQ(Bot()->Decode(MakeDelivery(), response).kind, Kind::kRetry);
}

TEST_F(SlackChannelTest, AHangIsATimeoutRetry) {
  SlackSettings settings;
  settings.mode = SlackSettings::Mode::kBotToken;
  settings.api_base_url = receiver_.ApiBaseUrl();
  settings.token = kToken;
  settings.channel = "C0ALERTS";
  settings.timeouts.connect = std::chrono::milliseconds(300);
  settings.timeouts.total = std::chrono::milliseconds(300);
  const auto channel = SlackChannel::Create(settings);
  ASSERT_TRUE(channel.ok());
  receiver_.FailNext(Fault::kHang);
  const SendOutcome outcome = SendOnce(**channel, client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kRetry);
  EXPECT_EQ(outcome.error.find(kToken), std::string::npos);
}

// An incoming webhook's URL is its credential: a hung hook's timeout names only its host.
TEST_F(SlackChannelTest, AHungIncomingWebhookNeverNamesItsUrl) {
  SlackSettings settings;
  settings.webhook_url = receiver_.WebhookUrl();
  settings.timeouts.connect = std::chrono::milliseconds(300);
  settings.timeouts.total = std::chrono::milliseconds(300);
  const auto channel = SlackChannel::Create(settings);
  ASSERT_TRUE(channel.ok());
  receiver_.FailNext(Fault::kHang);
  const SendOutcome outcome = SendOnce(**channel, client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kRetry);
  EXPECT_EQ(outcome.error.find("/services/T0/B0/hook"), std::string::npos) << outcome.error;
  EXPECT_NE(outcome.error.find("[redacted]"), std::string::npos) << outcome.error;
}

TEST_F(SlackChannelTest, AnIncomingWebhookPostsTextAndBlocks) {
  const auto channel = Hook();
  const SendOutcome outcome = SendOnce(*channel, client_, MakeDelivery());
  ASSERT_EQ(outcome.kind, Kind::kSent) << outcome.error;
  EXPECT_EQ(outcome.remote_message_id, "");
  const auto requests = receiver_.Requests();
  ASSERT_EQ(requests.size(), 1u);
  const json body = json::parse(requests[0].body);
  EXPECT_EQ(body["text"], "TypeError in checkout");
  EXPECT_EQ(body["blocks"][0]["text"]["type"], "mrkdwn");
  EXPECT_NE(body["blocks"][0]["text"]["text"].get<std::string>().find("12 events"),
            std::string::npos);
  EXPECT_FALSE(body.contains("channel"));

  core::HttpResponse gone;
  gone.status = 404;
  gone.body = "channel_not_found";
  const SendOutcome missing = channel->Decode(MakeDelivery(), gone);
  EXPECT_EQ(missing.kind, Kind::kPermanent);
  EXPECT_EQ(missing.error, "slack: HTTP 404: channel_not_found");
}

// With a signing secret configured the message ends with Slack's documented button element
// (an actions block), its value the incident's key and generation; a resolve has none.
TEST_F(SlackChannelTest, AnAckButtonEndsOpensWhenTheChannelHasASigningSecret) {
  SlackSettings settings;
  settings.webhook_url = receiver_.WebhookUrl();
  settings.signing_secret = "slack-signing-secret";
  auto channel = SlackChannel::Create(settings);
  ASSERT_TRUE(channel.ok());
  const core::Delivery open = MakeDelivery();
  ASSERT_EQ(SendOnce(**channel, client_, open).kind, Kind::kSent);
  ASSERT_EQ(SendOnce(**channel, client_, MakeDelivery(TransitionKind::kResolve)).kind, Kind::kSent);
  const auto requests = receiver_.Requests();
  ASSERT_EQ(requests.size(), 2u);
  const json blocks = json::parse(requests[0].body)["blocks"];
  const json& actions = blocks.back();
  EXPECT_EQ(actions["type"], "actions");
  ASSERT_EQ(actions["elements"].size(), 1u);
  EXPECT_EQ(actions["elements"][0]["type"], "button");
  EXPECT_EQ(actions["elements"][0]["action_id"], "quell_ack");
  EXPECT_EQ(actions["elements"][0]["text"]["text"], "Acknowledge");
  EXPECT_EQ(actions["elements"][0]["value"],
            open.row.key + ":" + std::to_string(open.row.generation));
  EXPECT_NE(json::parse(requests[1].body)["blocks"].back()["type"], "actions");
}

// Slack refuses a whole message whose button value passes 2000 characters (docs.slack.dev,
// reference/block-kit/block-elements/button-element): an incident with so long a key gets its
// message without the button rather than no message.
TEST_F(SlackChannelTest, AKeyTooLongForAButtonValueSendsTheMessageWithoutTheButton) {
  SlackSettings settings;
  settings.webhook_url = receiver_.WebhookUrl();
  settings.signing_secret = "slack-signing-secret";
  auto channel = SlackChannel::Create(settings);
  ASSERT_TRUE(channel.ok());
  core::Delivery open = MakeDelivery();
  open.row.key = "acme:" + std::string(1995, 'k');  // with ":<generation>" past 2000
  ASSERT_EQ(SendOnce(**channel, client_, open).kind, Kind::kSent);
  core::Delivery fits = MakeDelivery();
  fits.row.key = "acme:" + std::string(1990, 'k');  // ":1" makes it 1997
  ASSERT_EQ(SendOnce(**channel, client_, fits).kind, Kind::kSent);
  const auto requests = receiver_.Requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_NE(json::parse(requests[0].body)["blocks"].back()["type"], "actions");
  const json button = json::parse(requests[1].body)["blocks"].back()["elements"][0];
  EXPECT_EQ(button["value"].get<std::string>().size(), 1997u);
}

TEST(SlackSettingsTest, CreateNamesTheMissingSetting) {
  SlackSettings settings;
  settings.mode = SlackSettings::Mode::kBotToken;
  settings.channel = "C1";
  auto r = SlackChannel::Create(settings);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "slack: token is required");
  settings.token = "xoxb-1";
  settings.channel.clear();
  r = SlackChannel::Create(settings);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "slack: channel is required");
  settings.mode = SlackSettings::Mode::kIncomingWebhook;
  r = SlackChannel::Create(settings);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "slack: webhook_url is required");
}

}  // namespace
}  // namespace quell::channels
