// MattermostChannel through CurlMultiClient against the loopback MattermostReceiver.
#include "quell/adapters/channels/mattermost/mattermost_channel.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "channel_test_support.h"
#include "mattermost_receiver.h"
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

constexpr const char* kKey = "xq3k8w1z7tbqfm9e4c5n6hyd2a";

class MattermostChannelTest : public ::testing::Test {
 protected:
  std::unique_ptr<MattermostChannel> Channel(std::string url = "",
                                             core::Duration total = std::chrono::seconds(5)) {
    MattermostSettings settings;
    settings.url = url.empty() ? receiver_.HookUrl() : std::move(url);
    settings.username = "quell";
    settings.icon_url = "https://quell.example.com/icon.png";
    settings.timeouts.connect = std::min<core::Duration>(total, std::chrono::seconds(1));
    settings.timeouts.total = total;
    auto channel = MattermostChannel::Create(settings);
    EXPECT_TRUE(channel.ok()) << channel.error().message;
    return std::move(*channel);
  }

  quell::testing::MattermostReceiver receiver_{kKey};
  curl::CurlMultiClient client_;
};

TEST_F(MattermostChannelTest, OpenRenotifyAndResolveArePostsWithTheOutboxKeyInProps) {
  const auto channel = Channel();
  for (const auto& [transition, version] :
       {std::pair{TransitionKind::kOpen, 1}, std::pair{TransitionKind::kRenotify, 2},
        std::pair{TransitionKind::kResolve, 3}}) {
    const SendOutcome sent =
        SendOnce(*channel, client_, MakeDelivery(transition, static_cast<uint64_t>(version)));
    ASSERT_EQ(sent.kind, Kind::kSent) << sent.error;
    EXPECT_EQ(sent.remote_message_id, "");
  }
  const auto posts = receiver_.Posts();
  ASSERT_EQ(posts.size(), 3u);
  EXPECT_EQ(posts[0].text,
            "**TypeError in checkout**\n12 events since 09:00. Latest: cannot read 'id' of "
            "undefined");
  EXPECT_EQ(posts[0].username, "quell");
  EXPECT_EQ(posts[0].icon_url, "https://quell.example.com/icon.png");
  EXPECT_EQ(posts[0].props.at("quell_idempotency_key"), MakeDelivery().row.idempotency_key);
  EXPECT_EQ(posts[0].props.at("quell_key"), "checkout/errors:TypeError");
  EXPECT_EQ(posts[0].props.at("quell_transition"), "open");
  EXPECT_EQ(posts[1].props.at("quell_transition"), "renotify");
  EXPECT_EQ(posts[2].props.at("quell_transition"), "resolve");
  const auto requests = receiver_.Requests();
  EXPECT_EQ(requests[0].path, std::string("/hooks/") + kKey);
  EXPECT_EQ(core::FindHeader(requests[0].headers, "Content-Type"), "application/json");
}

// Mattermost would split a text over 16383 characters into several posts: a group's list is
// cut so that it stays one.
TEST_F(MattermostChannelTest, AGroupMessageIsOnePost) {
  core::Delivery group;
  group.row = core::MakeGroupRow("ops", "condition=model-answer", 1, TransitionKind::kOpen, 400,
                                 *core::ParseRfc3339("2026-12-02T09:00:00Z"));
  group.message.subject = "[error] condition=model-answer: 400 opened; 400 still open";
  for (int i = 0; i < 400; ++i) {
    group.message.body +=
        "  - opened t" + std::to_string(i) + "/model-answer: " + std::string(60, 'x') + "\n";
  }
  ASSERT_EQ(SendOnce(*Channel(), client_, group).kind, Kind::kSent);
  const auto posts = receiver_.Posts();
  ASSERT_EQ(posts.size(), 1u);
  EXPECT_EQ(posts[0].props.at("quell_key"), "{group}:condition=model-answer");
  EXPECT_NE(posts[0].text.find("opened t0/"), std::string::npos);
}

// An error text saying "@channel" must not notify the whole channel.
TEST_F(MattermostChannelTest, ChannelWideMentionsInTheTextAreDefused) {
  core::Delivery delivery = MakeDelivery();
  delivery.message.body = "upstream said: @channel deploy now, @ALL hands, @here; mail a@heres.io";
  ASSERT_EQ(SendOnce(*Channel(), client_, delivery).kind, Kind::kSent);
  const auto posts = receiver_.Posts();
  ASSERT_EQ(posts.size(), 1u);
  EXPECT_FALSE(posts[0].mentions_channel) << posts[0].text;
  EXPECT_NE(posts[0].text.find("@\xE2\x80\x8B"
                               "channel"),
            std::string::npos);
  EXPECT_NE(posts[0].text.find("a@heres.io"), std::string::npos) << "not a mention: unchanged";
  EXPECT_EQ(DefuseChannelMentions("@all"),
            "@\xE2\x80\x8B"
            "all");
  EXPECT_EQ(DefuseChannelMentions("@alice"), "@alice");
}

TEST_F(MattermostChannelTest, A429IsThrottledForItsRetryAfterAndA5xxIsRetried) {
  const auto channel = Channel();
  receiver_.SetRetryAfter("12");
  receiver_.FailNext(Fault::kStatus429);
  SendOutcome outcome = SendOnce(*channel, client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kRetry);
  EXPECT_TRUE(outcome.throttled);
  ASSERT_TRUE(outcome.retry_after.has_value());
  EXPECT_EQ(*outcome.retry_after, std::chrono::seconds(12));
  EXPECT_EQ(outcome.error, "mattermost: HTTP 429: limit exceeded");

  receiver_.FailNext(Fault::kStatus500);
  outcome = SendOnce(*channel, client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kRetry);
  EXPECT_FALSE(outcome.throttled);
  EXPECT_NE(outcome.error.find("Unable to save the post."), std::string::npos) << outcome.error;
  EXPECT_TRUE(receiver_.Posts().empty());
  EXPECT_EQ(SendOnce(*channel, client_, MakeDelivery()).kind, Kind::kSent);
}

// Incoming webhooks have no idempotency key: a retry after an accepted but unanswered request
// is a second post, with the same quell_idempotency_key in its props.
TEST_F(MattermostChannelTest, ARetryAfterAHangIsASecondPost) {
  const auto channel = Channel("", std::chrono::milliseconds(300));
  receiver_.FailNext(Fault::kHang);
  const SendOutcome hung = SendOnce(*channel, client_, MakeDelivery());
  EXPECT_EQ(hung.kind, Kind::kRetry);
  EXPECT_EQ(hung.error.find(kKey), std::string::npos) << hung.error;
  EXPECT_EQ(SendOnce(*channel, client_, MakeDelivery()).kind, Kind::kSent);
  const auto posts = receiver_.Posts();
  ASSERT_EQ(posts.size(), 2u);
  EXPECT_EQ(posts[0].props.at("quell_idempotency_key"), posts[1].props.at("quell_idempotency_key"));
  EXPECT_TRUE(receiver_.Requests().at(1).duplicate);
}

TEST_F(MattermostChannelTest, AWrongKeyIsPermanentAndNeverInTheError) {
  const std::string wrong = "wrongkey0000000000000000aa";
  const SendOutcome outcome =
      SendOnce(*Channel(receiver_.BaseUrl() + "/hooks/" + wrong), client_, MakeDelivery());
  EXPECT_EQ(outcome.kind, Kind::kPermanent);
  EXPECT_EQ(outcome.error,
            "mattermost: HTTP 400: Invalid webhook. (web.incoming_webhook.invalid.app_error)");

  core::HttpResponse echo;
  echo.status = 400;
  echo.body = R"({"id":"x","message":"hook )" + wrong + R"( unknown","status_code":400})";
  EXPECT_EQ(Channel(receiver_.BaseUrl() + "/hooks/" + wrong)
                ->Decode(MakeDelivery(), echo)
                .error.find(wrong),
            std::string::npos);
}

TEST(MattermostSettingsTest, CreateChecksTheUrls) {
  MattermostSettings settings;
  auto r = MattermostChannel::Create(settings);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "mattermost: url is required");
  settings.url = "https://chat.example.com/hooks/abc";
  settings.icon_url = "icon.png";
  r = MattermostChannel::Create(settings);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "mattermost: icon_url must start with http:// or https://");
}

}  // namespace
}  // namespace quell::channels
