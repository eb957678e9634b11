// A group message (and a single transition) as each HTTP channel encodes it, rendered by the
// real renderer, checked against the provider's documented limits: Slack at most 50 blocks of
// at most 3000 characters, PagerDuty's summary at most 1024 and one alert per group, Twilio
// within the SMS policy's segments, the webhook body JSON with every count.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "quell/adapters/channels/discord/discord_channel.h"
#include "quell/adapters/channels/google_chat/google_chat_channel.h"
#include "quell/adapters/channels/mattermost/mattermost_channel.h"
#include "quell/adapters/channels/ntfy/ntfy_channel.h"
#include "quell/adapters/channels/pagerduty/pagerduty_channel.h"
#include "quell/adapters/channels/slack/slack_channel.h"
#include "quell/adapters/channels/sms/twilio_sms_channel.h"
#include "quell/adapters/channels/teams/teams_channel.h"
#include "quell/adapters/channels/telegram/telegram_channel.h"
#include "quell/adapters/channels/webhook/webhook_channel.h"
#include "quell/adapters/templates/mustache_renderer.h"
#include "quell/core/delivery/message_limits.h"
#include "quell/core/text/url.h"

namespace quell::channels {
namespace {

using nlohmann::json;

const core::WallTime kNow{std::chrono::seconds(1'796'000'000)};

std::string Member(int n, const std::string& transition) {
  const std::string tenant = "t" + std::to_string(n);
  return R"({"key":")" + tenant + R"(/model-answer/TimeoutError","condition":"model-answer",)" +
         R"("generation":1,"version":2,"transition":")" + transition + R"(","status":")" +
         (transition == "resolve" ? "resolved" : "open") +
         R"(","opened_at":"2026-12-02T09:00:00Z","last_seen_at":"2026-12-02T09:05:00Z",)"
         R"("event_count":1,"evidence":[{"title":"TimeoutError <upstream> & co","level":"error",)"
         R"("count":"7","message":"call )" +
         tenant + R"( took 30s"}],"labels":{"tenant":")" + tenant + R"("},"upstream_count":7})";
}

core::OutboxRow GroupRow(int members, int open_after) {
  std::string list;
  for (int i = 0; i < members; ++i) list += (i > 0 ? "," : "") + Member(i + 1, "open");
  core::OutboxRow row;
  row.kind = core::OutboxRowKind::kGroup;
  row.key = "{group}:condition=model-answer";
  row.channel = "ops";
  row.generation = 4;
  row.version = 1;
  row.transition = core::TransitionKind::kOpen;
  row.idempotency_key = core::OutboxIdempotencyKey(row.key, row.generation, 1, row.channel);
  row.payload = R"({"group":{"key":"condition=model-answer","channel":"ops","sequence":4,)"
                R"("labels":{"condition":"model-answer"},"counts":{"members":)" +
                std::to_string(members) + R"(,"open":)" + std::to_string(members) +
                R"(,"renotify":0,"resolve":0},"open_after":)" + std::to_string(open_after) +
                R"(,"members":[)" + list + "]}}";
  return row;
}

core::Delivery Rendered(core::OutboxRow row, const std::string& type,
                        templates::RendererOptions options = {}) {
  options.view.public_url = "https://quell.example.com";
  const templates::MustacheRenderer renderer(options);
  // The payload read as the dispatcher reads it, for the channel.
  core::Result<core::Message> content = renderer.Decode(row);
  EXPECT_TRUE(content.ok()) << content.error().message;
  if (!content.ok()) return core::Delivery{std::move(row), {}, "", {}};
  core::Result<core::RenderedMessage> message = renderer.Render(type, row);
  EXPECT_TRUE(message.ok()) << message.error().message;
  return core::Delivery{std::move(row), message.ok() ? *message : core::RenderedMessage{}, "",
                        std::move(*content)};
}

WebhookSettings Webhook() {
  WebhookSettings settings;
  settings.url = "http://127.0.0.1:1/hook";
  settings.signing = WebhookSigning::kOff;
  return settings;
}

PagerDutySettings PagerDuty() {
  PagerDutySettings settings;
  settings.routing_key = "R0123456789abcdef0123456789abcde";
  return settings;
}

size_t Chars(const std::string& s) {
  size_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

TEST(GroupChannelsTest, WebhookBodyIsJsonWithAMembersArrayAndEveryCount) {
  auto channel = WebhookChannel::Create(Webhook());
  ASSERT_TRUE(channel.ok());
  const core::Delivery delivery = Rendered(GroupRow(1200, 1200), "webhook");
  const auto request = (*channel)->Encode(delivery, kNow);
  ASSERT_TRUE(request.ok()) << request.error().message;
  const json body = json::parse(request->body);
  EXPECT_EQ(body["kind"], "group");
  EXPECT_EQ(body["version"], 1);
  EXPECT_EQ(body["key"], "{group}:condition=model-answer");
  EXPECT_EQ(body["idempotency_key"], delivery.row.idempotency_key);
  EXPECT_EQ(body["transition"], "open");
  EXPECT_TRUE(body["incident"].is_null());
  EXPECT_EQ(body["members"].size(), 1000U);  // the webhook's default group_limit
  EXPECT_EQ(body["members"][0]["key"], "t1/model-answer/TimeoutError");
  EXPECT_EQ(body["members"][0]["upstream_count"], 7);
  EXPECT_EQ(body["group"]["counts"]["members"], 1200);
  EXPECT_EQ(body["group"]["counts"]["open"], 1200);
  EXPECT_EQ(body["group"]["members_more"], 200);
  EXPECT_EQ(body["group"]["open_after"], 1200);
  EXPECT_EQ(body["group"]["sequence"], 4);
  EXPECT_FALSE(body["group"].contains("members"));
  const std::string text = body["message"]["body"];
  EXPECT_NE(text.find("TimeoutError <upstream> & co"), std::string::npos) << text;
  EXPECT_NE(text.find("and 200 more"), std::string::npos);
}

TEST(GroupChannelsTest, WebhookBodyOfASingleTransitionIsAsBefore) {
  auto channel = WebhookChannel::Create(Webhook());
  core::OutboxRow row = GroupRow(1, 1);
  row.kind = core::OutboxRowKind::kIncident;  // one incident's row, not a group's
  row.kind = core::OutboxRowKind::kIncident;  // one incident\'s row, not a group\'s
  row.key = "t1/model-answer/TimeoutError";
  row.payload = Member(1, "open");
  const auto request = (*channel)->Encode(Rendered(row, "webhook"), kNow);
  const json body = json::parse(request->body);
  EXPECT_EQ(body["kind"], "incident");
  EXPECT_EQ(body["incident"]["key"], "t1/model-answer/TimeoutError");
  EXPECT_FALSE(body.contains("members"));
}

TEST(GroupChannelsTest, SlackKeepsToFiftyBlocksOf3000Characters) {
  SlackSettings slack;
  slack.webhook_url = "http://127.0.0.1:1/slack";
  auto channel = SlackChannel::Create(slack);
  ASSERT_TRUE(channel.ok());
  templates::RendererOptions options;
  options.group_limits["ops"] = 1000;  // far more than fits: the channel still keeps the limits
  for (const int members : {3, 200}) {
    const core::Delivery delivery = Rendered(GroupRow(members, members), "slack",
                                             members == 3 ? templates::RendererOptions{} : options);
    const auto request = (*channel)->Encode(delivery, kNow);
    ASSERT_TRUE(request.ok());
    const json body = json::parse(request->body);
    ASSERT_TRUE(body["blocks"].is_array());
    EXPECT_GE(body["blocks"].size(), 1U);
    EXPECT_LE(body["blocks"].size(), 50U);
    std::string all;
    for (const json& block : body["blocks"]) {
      const std::string text = block["text"]["text"];
      EXPECT_LE(Chars(text), 3000U);
      all += text + "\n";
    }
    EXPECT_LE(all.size(), 12000U + 50U);
    EXPECT_NE(all.find("`t1/model-answer/TimeoutError`"), std::string::npos);
    EXPECT_NE(all.find("TimeoutError &lt;upstream&gt; &amp; co"), std::string::npos);
    if (members == 200) {
      EXPECT_GT(body["blocks"].size(), 1U);
      EXPECT_NE(all.find("`t20/model-answer/TimeoutError`"), std::string::npos);
      EXPECT_EQ(all.substr(all.size() - 4), "\xE2\x80\xA6\n");  // cut, and says so
    }
    EXPECT_LE(Chars(body["text"]), 4000U);
  }
}

TEST(GroupChannelsTest, PagerDutyMakesOneAlertPerGroupAndResolvesItWhenNoneIsOpen) {
  auto channel = PagerDutyChannel::Create(PagerDuty());
  ASSERT_TRUE(channel.ok());
  const auto open = (*channel)->Encode(Rendered(GroupRow(200, 200), "pagerduty"), kNow);
  ASSERT_TRUE(open.ok());
  const json trigger = json::parse(open->body);
  EXPECT_EQ(trigger["event_action"], "trigger");
  EXPECT_EQ(trigger["dedup_key"], "{group}:condition=model-answer");
  EXPECT_LE(Chars(trigger["payload"]["summary"]), 1024U);
  EXPECT_EQ(trigger["payload"]["severity"], "error");
  EXPECT_EQ(trigger["payload"]["custom_details"]["counts"]["members"], 200);
  EXPECT_EQ(trigger["payload"]["custom_details"]["members"].size(), 5U);
  EXPECT_EQ(trigger["payload"]["custom_details"]["members_more"], 195);
  EXPECT_EQ(trigger["payload"]["custom_details"]["kind"], "group");

  core::OutboxRow later = GroupRow(3, 0);
  later.generation = 5;
  later.transition = core::TransitionKind::kResolve;
  const auto resolve = (*channel)->Encode(Rendered(later, "pagerduty"), kNow);
  const json resolved = json::parse(resolve->body);
  EXPECT_EQ(resolved["event_action"], "resolve");
  EXPECT_EQ(resolved["dedup_key"], trigger["dedup_key"]);  // one alert across the messages
  // A later message where members still fail triggers the same alert again.
  core::OutboxRow still = GroupRow(3, 1);
  still.transition = core::TransitionKind::kResolve;
  EXPECT_EQ(
      json::parse((*channel)->Encode(Rendered(still, "pagerduty"), kNow)->body)["event_action"],
      "trigger");
}

TEST(GroupChannelsTest, PagerDutyGetsCriticalForAFatalLevel) {
  auto channel = PagerDutyChannel::Create(PagerDuty());
  core::OutboxRow row = GroupRow(1, 1);
  row.kind = core::OutboxRowKind::kIncident;  // one incident's row, not a group's
  row.kind = core::OutboxRowKind::kIncident;  // one incident\'s row, not a group\'s
  row.key = "t1/model-answer/TimeoutError";
  row.payload = Member(1, "open");
  const std::string from = R"("level":"error")";
  row.payload.replace(row.payload.find(from), from.size(), R"("level":"fatal")");
  const core::Delivery delivery = Rendered(row, "pagerduty");
  EXPECT_EQ(delivery.message.severity, "fatal");
  const json body = json::parse((*channel)->Encode(delivery, kNow)->body);
  EXPECT_EQ(body["payload"]["severity"], "critical");
  EXPECT_EQ(body["dedup_key"], "t1/model-answer/TimeoutError:4");
  EXPECT_NE(body["payload"]["summary"].get<std::string>().find("TimeoutError <upstream> & co"),
            std::string::npos);
}

TEST(GroupChannelsTest, TwilioSendsTwoHundredMembersWithinTheSegments) {
  SmsSettings twilio;
  twilio.account_sid = "AC123";
  twilio.auth_token = "token";
  twilio.from = "+15005550006";
  twilio.to = "+15005550001";
  auto channel = TwilioSmsChannel::Create(twilio);
  ASSERT_TRUE(channel.ok());
  templates::RendererOptions options;
  options.sms_max_segments = 2;
  const auto request = (*channel)->Encode(Rendered(GroupRow(200, 200), "sms", options), kNow);
  ASSERT_TRUE(request.ok());
  const std::string& form = request->body;
  const size_t at = form.find("Body=");
  ASSERT_NE(at, std::string::npos);
  // The form value, decoded: '+' never appears (spaces are %20), so percent-decoding suffices.
  std::string text;
  for (size_t i = at + 5; i < form.size() && form[i] != '&'; ++i) {
    if (form[i] == '%') {
      text += static_cast<char>(std::stoi(form.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      text += form[i];
    }
  }
  EXPECT_LE(core::CountSms(text).segments, 2U) << text;
  EXPECT_NE(text.find("200 opened"), std::string::npos) << text;
  EXPECT_NE(text.find("and 197 more"), std::string::npos) << text;
}

// Google Chat, ntfy, Telegram: a group of 200 within each provider's limit, its
// counts and "… and N more" kept, one thread (Chat) per group key.
TEST(GroupChannelsTest, GoogleChatThreadsAGroupByItsKeyWithinTheMessageLimit) {
  GoogleChatSettings settings;
  settings.url = "https://chat.example/v1/spaces/S/messages";
  auto channel = GoogleChatChannel::Create(settings);
  ASSERT_TRUE(channel.ok());
  const core::Delivery delivery = Rendered(GroupRow(200, 200), "google_chat");
  const auto request = (*channel)->Encode(delivery, kNow);
  ASSERT_TRUE(request.ok()) << request.error().message;
  EXPECT_LE(request->body.size(), 32000U);
  const json body = json::parse(request->body);
  EXPECT_EQ(body["thread"]["threadKey"], "{group}:condition=model-answer");
  const std::string text = body["text"];
  EXPECT_NE(text.find("200 opened"), std::string::npos) << text;
  EXPECT_NE(text.find("t20/model-answer/TimeoutError"), std::string::npos);  // limit 20
  EXPECT_EQ(text.find("t21/model-answer/TimeoutError"), std::string::npos);
  EXPECT_NE(text.find("and 180 more"), std::string::npos);
  EXPECT_NE(request->url.find("messageReplyOption=REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD"),
            std::string::npos);
  EXPECT_NE(request->url.find("requestId=" + GoogleChatRequestId(delivery.row.idempotency_key)),
            std::string::npos);
}

TEST(GroupChannelsTest, NtfyKeepsAGroupWithinOneNotification) {
  NtfySettings settings;
  settings.url = "https://ntfy.sh/ops";
  auto channel = NtfyChannel::Create(settings);
  ASSERT_TRUE(channel.ok());
  const auto request = (*channel)->Encode(Rendered(GroupRow(200, 200), "ntfy"), kNow);
  ASSERT_TRUE(request.ok());
  EXPECT_EQ(request->url, "https://ntfy.sh/");
  const json body = json::parse(request->body);
  EXPECT_EQ(body["topic"], "ops");
  EXPECT_LE(body["message"].get<std::string>().size(), 4096U);
  EXPECT_LE(body["title"].get<std::string>().size(), 1024U);
  EXPECT_NE(body["title"].get<std::string>().find("200 opened"), std::string::npos);
  EXPECT_NE(body["message"].get<std::string>().find("and 195 more"), std::string::npos);
  EXPECT_EQ(body["priority"], 4);  // the gravest member's error
  EXPECT_FALSE(body.contains("click"));
}

TEST(GroupChannelsTest, TelegramKeepsAGroupWithin4096Characters) {
  TelegramSettings settings;
  settings.token = "1:abc";
  settings.chat_id = "42";
  auto channel = TelegramChannel::Create(settings);
  ASSERT_TRUE(channel.ok());
  const auto request = (*channel)->Encode(Rendered(GroupRow(200, 200), "telegram"), kNow);
  ASSERT_TRUE(request.ok());
  EXPECT_EQ(request->url, "https://api.telegram.org/bot1:abc/sendMessage");
  const std::string text = json::parse(request->body)["text"];
  EXPECT_LE(Chars(text), 4096U);
  EXPECT_NE(text.find("t10/model-answer/TimeoutError"), std::string::npos);  // limit 10
  EXPECT_NE(text.find("and 190 more"), std::string::npos) << text;
}

TeamsSettings Teams() {
  TeamsSettings settings;
  settings.url = "https://example.logic.azure.com/workflows/1";
  return settings;
}

DiscordSettings Discord() {
  DiscordSettings settings;
  settings.url = "https://discord.com/api/webhooks/1/t";
  return settings;
}

MattermostSettings Mattermost() {
  MattermostSettings settings;
  settings.url = "https://chat.example.com/hooks/k";
  return settings;
}

// Teams, Discord, Mattermost: the rendered group text in each provider's shape, within
// its documented limits: a Teams message 28 KB, Discord content 2000 and an embed's description
// 4096 characters, a Mattermost post 16383 (a longer one would be split into several posts).
TEST(GroupChannelsTest, TeamsKeepsTheCardUnder28KilobytesAndListsItsDefaultTwenty) {
  auto channel = TeamsChannel::Create(Teams());
  ASSERT_TRUE(channel.ok());
  templates::RendererOptions many;
  many.group_limits["ops"] = 1000;
  for (const auto& options : {templates::RendererOptions{}, many}) {
    const core::Delivery delivery = Rendered(GroupRow(200, 200), "teams", options);
    const auto request = (*channel)->Encode(delivery, kNow);
    ASSERT_TRUE(request.ok());
    EXPECT_LE(request->body.size(), 28U * 1024U);
    const json card = json::parse(request->body)["attachments"][0]["content"];
    std::string all;
    for (const json& block : card["body"]) {
      if (block["type"] == "TextBlock") all += block["text"].get<std::string>() + "\n";
    }
    EXPECT_NE(all.find("t1/model-answer/TimeoutError"), std::string::npos);
    EXPECT_NE(all.find("TimeoutError <upstream> & co"), std::string::npos);
    if (options.group_limits.empty()) {
      EXPECT_NE(all.find("t20/model-answer/TimeoutError"), std::string::npos);
      EXPECT_EQ(all.find("t21/model-answer/TimeoutError"), std::string::npos);
      EXPECT_NE(all.find("and 180 more"), std::string::npos) << all;
    } else {
      EXPECT_NE(all.find("\xE2\x80\xA6\n"), std::string::npos) << "cut, and says so";
    }
    EXPECT_EQ(card["body"].back()["type"], "FactSet");
  }
}

TEST(GroupChannelsTest, DiscordKeepsContentAndDescriptionWithinTheirLimits) {
  auto channel = DiscordChannel::Create(Discord());
  ASSERT_TRUE(channel.ok());
  templates::RendererOptions many;
  many.group_limits["ops"] = 1000;
  for (const auto& options : {templates::RendererOptions{}, many}) {
    const auto request = (*channel)->Encode(Rendered(GroupRow(200, 200), "discord", options), kNow);
    ASSERT_TRUE(request.ok());
    const json body = json::parse(request->body);
    EXPECT_LE(Chars(body["content"]), 2000U);
    const std::string description = body["embeds"][0]["description"];
    EXPECT_LE(Chars(description), 4096U);
    EXPECT_NE(description.find("t1/model-answer/TimeoutError"), std::string::npos);
    if (options.group_limits.empty()) {
      EXPECT_NE(description.find("and 190 more"), std::string::npos) << description;
    }
  }
}

TEST(GroupChannelsTest, MattermostIsOnePostOfAtMost16383Characters) {
  auto channel = MattermostChannel::Create(Mattermost());
  ASSERT_TRUE(channel.ok());
  templates::RendererOptions many;
  many.group_limits["ops"] = 1000;
  const auto request = (*channel)->Encode(Rendered(GroupRow(1000, 1000), "mattermost", many), kNow);
  ASSERT_TRUE(request.ok());
  const json body = json::parse(request->body);
  EXPECT_LE(Chars(body["text"]), 16383U);
  EXPECT_EQ(body["props"]["quell_key"], "{group}:condition=model-answer");
  const std::string fifty = json::parse(
      (*channel)->Encode(Rendered(GroupRow(200, 200), "mattermost"), kNow)->body)["text"];
  EXPECT_NE(fifty.find("and 150 more"), std::string::npos);
}

// A single transition in each: the default Markdown template, the subject where each provider
// shows a title.
TEST(GroupChannelsTest, SingleTransitionsUseTheMarkdownTemplate) {
  core::OutboxRow row = GroupRow(1, 1);
  row.kind = core::OutboxRowKind::kIncident;  // one incident's row, not a group's
  row.kind = core::OutboxRowKind::kIncident;  // one incident\'s row, not a group\'s
  row.key = "t1/model-answer/TimeoutError";
  row.payload = Member(1, "open");
  const core::Delivery delivery = Rendered(row, "mattermost");
  EXPECT_NE(delivery.message.body.find("**model-answer** opened: `t1/model-answer/TimeoutError`"),
            std::string::npos)
      << delivery.message.body;
  EXPECT_NE(delivery.message.body.find("[Open in quell](https://quell.example.com/"),
            std::string::npos)
      << delivery.message.body;
  auto teams = TeamsChannel::Create(Teams());
  const json card = json::parse((*teams)->Encode(Rendered(row, "teams"), kNow)->body);
  EXPECT_EQ(card["attachments"][0]["content"]["body"][0]["text"], delivery.message.subject);
  auto discord = DiscordChannel::Create(Discord());
  EXPECT_EQ(json::parse((*discord)->Encode(Rendered(row, "discord"), kNow)->body)["content"],
            delivery.message.subject);
}

// Each episode of a group (core::GroupEpisodeOf) is an alert of its own, whose key names the
// channel and the episode, so a webhook about one alert never touches the next one's members.
TEST(GroupChannelsTest, PagerDutyKeysEachEpisodeOfAGroupApart) {
  auto channel = PagerDutyChannel::Create(PagerDuty());
  ASSERT_TRUE(channel.ok());
  const auto in_episode = [](core::OutboxRow row, uint64_t episode) {
    const std::string at = R"("open_after":)";
    row.payload.insert(row.payload.find(at), R"("episode":)" + std::to_string(episode) + ",");
    return row;
  };
  const json open = json::parse(
      (*channel)->Encode(Rendered(in_episode(GroupRow(2, 2), 4), "pagerduty"), kNow)->body);
  EXPECT_EQ(open["dedup_key"], "{group:ops:4}:condition=model-answer");
  EXPECT_EQ(open["payload"]["custom_details"]["episode"], 4);
  core::OutboxRow last = in_episode(GroupRow(2, 0), 4);
  last.generation = 5;
  const json resolve = json::parse((*channel)->Encode(Rendered(last, "pagerduty"), kNow)->body);
  EXPECT_EQ(resolve["event_action"], "resolve");
  EXPECT_EQ(resolve["dedup_key"], open["dedup_key"]);
  core::OutboxRow next = in_episode(GroupRow(1, 1), 6);
  next.generation = 6;
  EXPECT_EQ(json::parse((*channel)->Encode(Rendered(next, "pagerduty"), kNow)->body)["dedup_key"],
            "{group:ops:6}:condition=model-answer");
}

// A group message's Acknowledge button names that message (its row's idempotency key), whose
// members are exactly what a click acks.
TEST(GroupChannelsTest, SlacksAckButtonOnAGroupNamesTheMessage) {
  SlackSettings slack;
  slack.webhook_url = "http://127.0.0.1:1/slack";
  slack.signing_secret = "slack-signing-secret";
  auto channel = SlackChannel::Create(slack);
  ASSERT_TRUE(channel.ok());
  const core::Delivery delivery = Rendered(GroupRow(3, 3), "slack");
  const json body = json::parse((*channel)->Encode(delivery, kNow)->body);
  EXPECT_EQ(body["blocks"].back()["elements"][0]["value"], delivery.row.idempotency_key);
}

}  // namespace
}  // namespace quell::channels
