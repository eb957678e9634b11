#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "quell/adapters/config/config_loader.h"

namespace quell::config {
namespace {

class ChannelConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("quell-channel-config-" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    env_["HOOK_SECRET"] = "s3cret-value-9";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  core::Result<Config> Load(const std::string& text) {
    const auto path = dir_ / "quell.yaml";
    std::ofstream(path) << text;
    return LoadConfig(path.string(), [this](std::string_view name) -> std::optional<std::string> {
      const auto it = env_.find(std::string(name));
      if (it == env_.end()) return std::nullopt;
      return it->second;
    });
  }

  void ExpectError(const std::string& text, std::initializer_list<std::string> parts) {
    auto config = Load(text);
    ASSERT_FALSE(config.ok()) << text;
    for (const std::string& part : parts) {
      EXPECT_NE(config.error().message.find(part), std::string::npos)
          << "missing \"" << part << "\" in: " << config.error().message;
    }
    EXPECT_EQ(config.error().message.find("s3cret-value-9"), std::string::npos);
  }

  std::filesystem::path dir_;
  std::map<std::string, std::string> env_;
};

constexpr const char* kWebhookChannel = R"(channels:
  - name: ops
    type: webhook
    url: http://127.0.0.1:9/hook
    secret_env: HOOK_SECRET
    concurrency: 16
    max_attempts: 5
)";

TEST_F(ChannelConfigTest, ReadsEveryChannelTypeWithSecretsByReference) {
  env_["SLACK_TOKEN"] = "xoxb-1";
  env_["TWILIO_TOKEN"] = "tw-2";
  env_["PD_KEY"] = "pd-3";
  std::ofstream(dir_ / "smtp.pass") << "mail-pass\n";
  auto config = Load(std::string(kWebhookChannel) + R"(  - name: chat
    type: slack
    bot_token_env: SLACK_TOKEN
    channel: C42
  - name: mail
    type: email
    url: smtp://127.0.0.1:2525
    from: quell@example.com
    to: [oncall@example.com, lead@example.com]
    password_file: smtp.pass
  - name: phone
    type: sms
    account_sid: AC1
    auth_token_env: TWILIO_TOKEN
    from: "+15550001"
    to: "+15550002"
    quiet_hours: {start: "22:00", end: "07:00", utc_offset: "+01:00"}
  - name: pager
    type: pagerduty
    routing_key_env: PD_KEY
dispatch:
  dead_letter: chat
  tenant_budget: {per_hour: 30}
shadow: true
conditions:
  - name: errs
    type: error_groups
    channels: [ops, pager]
)");
  ASSERT_TRUE(config.ok()) << config.error().message;
  ASSERT_EQ(config->channels.size(), 5U);
  EXPECT_EQ(config->channels[0].As<channels::WebhookSettings>().secret, "s3cret-value-9");
  EXPECT_EQ(config->channels[0].delivery.concurrency, 16U);
  EXPECT_EQ(config->channels[1].As<channels::SlackSettings>().token, "xoxb-1");
  EXPECT_EQ(config->channels[2].As<email::EmailSettings>().password, "mail-pass");
  EXPECT_EQ(config->channels[2].As<email::EmailSettings>().to.size(), 2U);
  EXPECT_EQ(config->channels[3].As<channels::SmsSettings>().quiet_start.value_or(""), "22:00");
  EXPECT_EQ(config->channels[3].As<channels::SmsSettings>().auth_token, "tw-2");
  EXPECT_EQ(config->channels[4].As<channels::PagerDutySettings>().routing_key, "pd-3");
  EXPECT_EQ(config->dispatch.dead_letter, "chat");
  EXPECT_EQ(config->dispatch.budget.per_hour, 30U);
  EXPECT_TRUE(config->shadow);
  // The top-level shadow reaches the conditions, which is where the poller reads it.
  ASSERT_EQ(config->error_conditions.size(), 1U);
  EXPECT_TRUE(config->error_conditions[0].common.shadow);
}

TEST_F(ChannelConfigTest, ReadsTheSlackResolveModeAndThePagerDutySource) {
  // Both were documented in channels.md and refused by the loader as unknown settings.
  env_["SLACK_TOKEN"] = "xoxb-1";
  env_["PD_KEY"] = "pd-3";
  auto config = Load(R"(channels:
  - {name: chat, type: slack, bot_token_env: SLACK_TOKEN, channel: C42,
     resolve_updates_root: false}
  - {name: pager, type: pagerduty, routing_key_env: PD_KEY, source: checkout-agents}
  - {name: pager2, type: pagerduty, routing_key_env: PD_KEY}
conditions:
  - {name: errs, type: error_groups, channels: [chat, pager, pager2]}
)");
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_FALSE(config->channels[0].As<channels::SlackSettings>().resolve_updates_root);
  EXPECT_EQ(config->channels[1].As<channels::PagerDutySettings>().source, "checkout-agents");
  EXPECT_EQ(config->channels[2].As<channels::PagerDutySettings>().source, "quell");

  ExpectError(R"(channels:
  - {name: pager, type: pagerduty, routing_key_env: PD_KEY, source: ""}
conditions:
  - {name: errs, type: error_groups, channels: [pager]}
)",
              {"quell.yaml:2:", "channels[0].source", "must not be empty"});
}

// PagerDuty's docs give the endpoint, https://events.pagerduty.com/v2/enqueue: a `url` copied
// from them posted to .../v2/enqueue/v2/enqueue, which PagerDuty answers 404.
TEST_F(ChannelConfigTest, APagerDutyUrlNamingTheEndpointIsItsBase) {
  env_["PD_KEY"] = "pd-3";
  auto config = Load(R"(channels:
  - {name: a, type: pagerduty, routing_key_env: PD_KEY, url: "https://events.pagerduty.com/v2/enqueue"}
  - {name: b, type: pagerduty, routing_key_env: PD_KEY, url: "https://events.eu.pagerduty.com/v2/enqueue/"}
  - {name: c, type: pagerduty, routing_key_env: PD_KEY, url: "http://127.0.0.1:9000/"}
  - {name: d, type: pagerduty, routing_key_env: PD_KEY, url: "http://127.0.0.1:9000/pd"}
  - {name: e, type: pagerduty, routing_key_env: PD_KEY}
conditions:
  - {name: errs, type: error_groups, channels: [a, b, c, d, e]}
)");
  ASSERT_TRUE(config.ok()) << config.error().message;
  const auto base = [&](size_t i) {
    return config->channels[i].As<channels::PagerDutySettings>().base_url;
  };
  EXPECT_EQ(base(0), "https://events.pagerduty.com");
  EXPECT_EQ(base(1), "https://events.eu.pagerduty.com");
  EXPECT_EQ(base(2), "http://127.0.0.1:9000");
  EXPECT_EQ(base(3), "http://127.0.0.1:9000/pd");
  EXPECT_EQ(base(4), "https://events.pagerduty.com");
}

TEST_F(ChannelConfigTest, AShortTimeoutBoundsTheDefaultConnectTimeout) {
  auto config = Load(R"(channels:
  - {name: ops, type: webhook, url: "http://127.0.0.1:9/hook", secret_env: HOOK_SECRET,
     timeout: 1s}
conditions:
  - {name: errs, type: error_groups, channels: [ops]}
)");
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->channels[0].delivery.timeout, std::chrono::seconds(1));
  EXPECT_EQ(config->channels[0].delivery.connect_timeout, std::chrono::seconds(1));

  ExpectError(R"(channels:
  - {name: ops, type: webhook, url: "http://127.0.0.1:9/hook", secret_env: HOOK_SECRET,
     timeout: 1s, connect_timeout: 2s}
conditions:
  - {name: errs, type: error_groups, channels: [ops]}
)",
              {"quell.yaml:3:", "channels[0].connect_timeout", "must not exceed timeout (1s)"});
}

TEST_F(ChannelConfigTest, RefusesAnInlineSecretWithoutEchoingIt) {
  ExpectError(R"(channels:
  - name: ops
    type: webhook
    url: http://127.0.0.1:9/hook
    secret: s3cret-value-9
conditions:
  - name: errs
    type: error_groups
    channels: [ops]
)",
              {"quell.yaml:5:", "channels[0].secret", "secret_env"});
}

TEST_F(ChannelConfigTest, AConditionRoutedToAnUnknownChannelIsAnError) {
  ExpectError(std::string(kWebhookChannel) + R"(conditions:
  - name: errs
    type: error_groups
    channels: [opz]
)",
              {"\"errs\"", "\"opz\""});
}

// The poller routes to channels without holding their credentials; only the dispatcher,
// which refuses to start on these, needs them.
TEST_F(ChannelConfigTest, AnUnsetSecretVariableLoadsAndIsRecordedWithItsLine) {
  env_.erase("HOOK_SECRET");
  std::ofstream(dir_ / "empty.secret") << "\n";
  auto config = Load(std::string(kWebhookChannel) + R"(  - name: pager
    type: pagerduty
    routing_key_file: empty.secret
conditions:
  - name: errs
    type: error_groups
    channels: [ops, pager]
)");
  ASSERT_TRUE(config.ok()) << config.error().message;
  ASSERT_EQ(config->channels.size(), 2U);
  EXPECT_TRUE(config->channels[0].As<channels::WebhookSettings>().secret.empty());
  ASSERT_EQ(config->channels[0].unresolved_secrets.size(), 1U);
  const std::string& hook = config->channels[0].unresolved_secrets[0];
  EXPECT_NE(hook.find("quell.yaml:5:"), std::string::npos) << hook;
  EXPECT_NE(hook.find("channels[0].secret_env: HOOK_SECRET is not set"), std::string::npos) << hook;
  ASSERT_EQ(config->channels[1].unresolved_secrets.size(), 1U);
  EXPECT_NE(config->channels[1].unresolved_secrets[0].find("routing_key_file"), std::string::npos);
  EXPECT_NE(config->channels[1].unresolved_secrets[0].find("is empty"), std::string::npos);
}

constexpr const char* kRouteToOps = R"(conditions:
  - name: errs
    type: error_groups
    channels: [ops]
)";

constexpr const char* kWhenSetWebhook = R"(channels:
  - name: ops
    type: webhook
    url: http://127.0.0.1:9/hook
    signing: when_set
    secret_env: HOOK_SECRET
)";

// when_set lets one config serve a first trial (no key yet) and production (signed): an unset
// variable is a warning with its line, not an unresolved secret that stops `quell dispatch`.
TEST_F(ChannelConfigTest, WhenSetSignsWithTheKeyAndWarnsWithoutIt) {
  auto with_key = Load(std::string(kWhenSetWebhook) + kRouteToOps);
  ASSERT_TRUE(with_key.ok()) << with_key.error().message;
  EXPECT_EQ(with_key->channels[0].As<channels::WebhookSettings>().signing,
            channels::WebhookSigning::kWhenSet);
  EXPECT_EQ(with_key->channels[0].As<channels::WebhookSettings>().secret, "s3cret-value-9");
  EXPECT_TRUE(with_key->warnings.empty());

  env_.erase("HOOK_SECRET");
  auto without = Load(std::string(kWhenSetWebhook) + kRouteToOps);
  ASSERT_TRUE(without.ok()) << without.error().message;
  EXPECT_TRUE(without->channels[0].As<channels::WebhookSettings>().secret.empty());
  EXPECT_TRUE(without->channels[0].unresolved_secrets.empty());
  ASSERT_EQ(without->warnings.size(), 1U);
  const std::string& warning = without->warnings[0];
  EXPECT_NE(warning.find("quell.yaml:6:"), std::string::npos) << warning;
  EXPECT_NE(warning.find("HOOK_SECRET is not set"), std::string::npos) << warning;
  EXPECT_NE(warning.find("\"ops\" sends unsigned requests"), std::string::npos) << warning;
}

// The default stays strict: without signing: the unset variable stops the dispatcher.
TEST_F(ChannelConfigTest, SigningIsRequiredUnlessTheConfigSaysOtherwise) {
  env_.erase("HOOK_SECRET");
  auto config = Load(std::string(kWebhookChannel) + kRouteToOps);
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->channels[0].As<channels::WebhookSettings>().signing,
            channels::WebhookSigning::kRequired);
  EXPECT_EQ(config->channels[0].unresolved_secrets.size(), 1U);
  EXPECT_TRUE(config->warnings.empty());
}

TEST_F(ChannelConfigTest, WhenSetStillRefusesAnUnreadableSecretFile) {
  auto config = Load(R"(channels:
  - name: ops
    type: webhook
    url: http://127.0.0.1:9/hook
    signing: when_set
    secret_file: missing.key
)" + std::string(kRouteToOps));
  ASSERT_TRUE(config.ok()) << config.error().message;
  ASSERT_EQ(config->channels[0].unresolved_secrets.size(), 1U);
  EXPECT_NE(config->channels[0].unresolved_secrets[0].find("missing.key"), std::string::npos);
  EXPECT_TRUE(config->warnings.empty());
}

TEST_F(ChannelConfigTest, SigningOffWarnsAndRefusesAnUnusedSecret) {
  auto off = Load(R"(channels:
  - name: ops
    type: webhook
    url: http://127.0.0.1:9/hook
    signing: off
)" + std::string(kRouteToOps));
  ASSERT_TRUE(off.ok()) << off.error().message;
  EXPECT_EQ(off->channels[0].As<channels::WebhookSettings>().signing,
            channels::WebhookSigning::kOff);
  ASSERT_EQ(off->warnings.size(), 1U);
  EXPECT_NE(off->warnings[0].find("quell.yaml:5:"), std::string::npos) << off->warnings[0];
  EXPECT_NE(off->warnings[0].find("(signing: off)"), std::string::npos) << off->warnings[0];

  ExpectError(R"(channels:
  - name: ops
    type: webhook
    url: http://127.0.0.1:9/hook
    signing: off
    secret_env: HOOK_SECRET
)" + std::string(kRouteToOps),
              {"quell.yaml:5:", "signing", "remove it or use when_set"});
  ExpectError(R"(channels:
  - name: ops
    type: webhook
    url: http://127.0.0.1:9/hook
    signing: sometimes
)" + std::string(kRouteToOps),
              {"quell.yaml:5:", "expected required, when_set or off", "\"sometimes\""});
}

TEST_F(ChannelConfigTest, BadSettingsNameTheirLine) {
  ExpectError(R"(channels:
  - name: phone
    type: sms
    account_sid: AC1
    auth_token_env: HOOK_SECRET
    from: "+1"
    to: "+2"
    quiet_hours: {start: "25:00", end: "07:00"}
conditions:
  - name: errs
    type: error_groups
    channels: [phone]
)",
              {"quell.yaml:8:", "quiet_hours.start", "HH:MM"});
  ExpectError(R"(channels:
  - name: ops
    type: carrier-pigeon
conditions:
  - name: errs
    type: error_groups
)",
              {"quell.yaml:3:", "carrier-pigeon"});
}

TEST_F(ChannelConfigTest, PerConditionShadowIsRead) {
  auto config = Load(std::string(kWebhookChannel) + R"(conditions:
  - name: errs
    type: error_groups
    channels: [ops]
    shadow: true
    severity: critical
)");
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_TRUE(config->error_conditions[0].common.shadow);
  EXPECT_EQ(config->condition_severity.at("errs"), "critical");
  EXPECT_FALSE(config->shadow);
}

TEST_F(ChannelConfigTest, GroupingIsReadInItsOrderWithDefaults) {
  auto config = Load(std::string(kWebhookChannel) + R"(    group_by: [condition, tenant]
    group_wait: 10s
  - name: plain
    type: webhook
    url: http://127.0.0.1:9/plain
    secret_env: HOOK_SECRET
conditions:
  - {name: errs, type: error_groups, channels: [ops, plain]}
)");
  ASSERT_TRUE(config.ok()) << config.error().message;
  const auto& grouping = config->channels[0].delivery.grouping;
  ASSERT_TRUE(grouping.has_value());
  EXPECT_EQ(grouping->group_by, (std::vector<std::string>{"condition", "tenant"}));
  EXPECT_EQ(grouping->group_wait, std::chrono::seconds(10));
  EXPECT_EQ(grouping->group_interval, std::chrono::minutes(5));
  EXPECT_FALSE(config->channels[1].delivery.grouping.has_value());
}

TEST_F(ChannelConfigTest, BadGroupingNamesItsLineAndColumn) {
  const std::string head = kWebhookChannel;
  ExpectError(head + "    group_by: condition\n",
              {"quell.yaml:8:15: channels[0].group_by", "expected a non-empty list"});
  ExpectError(head + "    group_by: []\n", {"quell.yaml:8:15", "non-empty list"});
  ExpectError(head + "    group_by: [condition, \"\"]\n",
              {"quell.yaml:8:27: channels[0].group_by", "must not be empty"});
  ExpectError(head + "    group_by: [tenant, tenant]\n", {"quell.yaml:8:24", "listed twice"});
  ExpectError(head + "    group_by: [[a]]\n", {"quell.yaml:8:16", "expected a single value"});
  ExpectError(head + "    group_by: [tenant]\n    group_wait: -5s\n",
              {"quell.yaml:9:17: channels[0].group_wait", "negative"});
  ExpectError(head + "    group_by: [tenant]\n    group_interval: soon\n",
              {"quell.yaml:9:21: channels[0].group_interval"});
  ExpectError(head + "    group_by: [tenant]\n    group_interval: 0s\n",
              {"quell.yaml:9:21: channels[0].group_interval", "must be positive"});
  ExpectError(head + "    group_interval: 5m\n",
              {"quell.yaml:8:21: channels[0].group_interval", "needs group_by"});
  ExpectError(head + "    group_wait: 5m\n", {"quell.yaml:8:17", "needs group_by"});
}

// A typo of a setting that is absent names the setting meant among the known ones: group_by
// (read only when present) was missing from the list a `groupby:` typo printed.
TEST_F(ChannelConfigTest, ATypoListsTheOptionalSettingsItCouldMean) {
  ExpectError(std::string(kWebhookChannel) + "    groupby: [tenant]\n",
              {"quell.yaml:8:5: channels[0].groupby: unknown setting", "group_by, group_interval"});
  ExpectError(
      "defaults:\n  renotify_limitt: 2\nconditions:\n  - {name: errs, type: error_groups}\n",
      {"quell.yaml:2:3: defaults.renotify_limitt", "flap", "renotify_limit,"});
}

// Google Chat, ntfy and Telegram: secrets by reference, the webhook URL inline or
// by reference, and each bad setting named at its line and column.
TEST_F(ChannelConfigTest, ReadsGoogleChatNtfyAndTelegram) {
  env_["GCHAT_URL"] = "https://chat.googleapis.com/v1/spaces/AAA/messages?key=k&token=t";
  env_["NTFY_TOKEN"] = "tk_0123456789";
  env_["TG_TOKEN"] = "7000000001:AAH";
  std::ofstream(dir_ / "chat.url") << "https://chat.googleapis.com/v1/spaces/BBB/messages?key=k\n";
  auto config = Load(R"(channels:
  - {name: chat, type: google_chat, url_env: GCHAT_URL}
  - {name: chat2, type: google_chat, url_file: chat.url, group_by: [condition]}
  - {name: chat3, type: google_chat, url: "https://chat.googleapis.com/v1/spaces/C/messages"}
  - {name: phone, type: ntfy, url: "https://ntfy.sh/quell-ops", token_env: NTFY_TOKEN}
  - {name: phone2, type: ntfy, url: "https://ntfy.example.com/alerts_1"}
  - {name: tg, type: telegram, chat_id: "-1001234567890", token_env: TG_TOKEN, max_attempts: 4}
  - {name: tg2, type: telegram, chat_id: "@quell_alerts", token_env: TG_TOKEN,
     api_url: "http://127.0.0.1:8081"}
conditions:
  - {name: errs, type: error_groups, channels: [chat, chat2, chat3, phone, phone2, tg, tg2]}
)");
  ASSERT_TRUE(config.ok()) << config.error().message;
  const auto& c = config->channels;
  ASSERT_EQ(c.size(), 7U);
  EXPECT_EQ(c[0].type(), "google_chat");
  EXPECT_EQ(c[0].As<channels::GoogleChatSettings>().url, env_["GCHAT_URL"]);
  EXPECT_EQ(c[1].As<channels::GoogleChatSettings>().url,
            "https://chat.googleapis.com/v1/spaces/BBB/messages?key=k");
  EXPECT_TRUE(c[1].delivery.grouping.has_value());
  EXPECT_EQ(c[2].As<channels::GoogleChatSettings>().url,
            "https://chat.googleapis.com/v1/spaces/C/messages");
  EXPECT_EQ(c[3].type(), "ntfy");
  EXPECT_EQ(c[3].As<channels::NtfySettings>().url, "https://ntfy.sh/quell-ops");
  EXPECT_EQ(c[3].As<channels::NtfySettings>().token, "tk_0123456789");
  EXPECT_EQ(c[4].As<channels::NtfySettings>().token, "");
  EXPECT_EQ(c[5].type(), "telegram");
  EXPECT_EQ(c[5].As<channels::TelegramSettings>().chat_id, "-1001234567890");
  EXPECT_EQ(c[5].As<channels::TelegramSettings>().token, "7000000001:AAH");
  EXPECT_EQ(c[5].As<channels::TelegramSettings>().api_url, "https://api.telegram.org");
  EXPECT_EQ(c[5].delivery.max_attempts, 4U);
  EXPECT_EQ(c[6].As<channels::TelegramSettings>().chat_id, "@quell_alerts");
  EXPECT_EQ(c[6].As<channels::TelegramSettings>().api_url, "http://127.0.0.1:8081");
  for (const auto& channel : c) EXPECT_TRUE(channel.unresolved_secrets.empty()) << channel.name;

  // An unset variable loads (the poller runs without it) and is recorded with its line.
  env_.erase("TG_TOKEN");
  config = Load(R"(channels:
  - name: tg
    type: telegram
    chat_id: "42"
    token_env: TG_TOKEN
conditions:
  - {name: errs, type: error_groups, channels: [tg]}
)");
  ASSERT_TRUE(config.ok()) << config.error().message;
  ASSERT_EQ(config->channels[0].unresolved_secrets.size(), 1U);
  EXPECT_NE(config->channels[0].unresolved_secrets[0].find("quell.yaml:5:"), std::string::npos)
      << config->channels[0].unresolved_secrets[0];
}

TEST_F(ChannelConfigTest, BadGoogleChatNtfyAndTelegramSettingsNameTheirLine) {
  ExpectError("channels:\n  - name: chat\n    type: google_chat\n",
              {"quell.yaml:2:5: channels[0]", "exactly one of url, url_env or url_file"});
  ExpectError(R"(channels:
  - name: chat
    type: google_chat
    url: "https://chat.googleapis.com/v1/spaces/C/messages"
    url_env: GCHAT_URL
)",
              {"quell.yaml:4:", "channels[0].url", "exactly one of url, url_env or url_file"});
  ExpectError(R"(channels:
  - name: chat
    type: google_chat
    url: "chat.googleapis.com/v1/spaces/C/messages"
)",
              {"quell.yaml:4:10: channels[0].url", "https://"});
  ExpectError(R"(channels:
  - name: phone
    type: ntfy
    url: "https://ntfy.sh/"
)",
              {"quell.yaml:4:10: channels[0].url", "topic URL"});
  ExpectError(R"(channels:
  - name: phone
    type: ntfy
    url: "https://ntfy.sh/ops"
    token: tk_inline_secret
)",
              {"quell.yaml:5:", "channels[0].token", "secrets do not belong", "token_env"});
  ExpectError(R"(channels:
  - name: tg
    type: telegram
    chat_id: "my group"
    token_env: HOOK_SECRET
)",
              {"quell.yaml:4:14: channels[0].chat_id", "@channelname"});
  ExpectError(R"(channels:
  - name: tg
    type: telegram
    chat_id: "42"
)",
              {"quell.yaml:2:5: channels[0]", "needs token_env or token_file"});
  ExpectError(R"(channels:
  - name: tg
    type: telegram
    chat_id: "42"
    token_env: HOOK_SECRET
    api_url: api.telegram.org
)",
              {"quell.yaml:6:14: channels[0].api_url", "http"});
  ExpectError(R"(channels:
  - name: tg
    type: telegram
    chat_id: "42"
    chat: "42"
    token_env: HOOK_SECRET
)",
              {"quell.yaml:5:5: channels[0].chat", "unknown setting"});
}

// Teams, Discord and Mattermost: a webhook URL that is itself the credential, given
// inline (usually "${VAR}"), by url_env or by url_file, exactly one.
TEST_F(ChannelConfigTest, ReadsTheChatWebhooksByUrlUrlEnvOrUrlFile) {
  env_["TEAMS_URL"] =
      "https://prod-01.westeurope.logic.azure.com/workflows/1/triggers/manual/"
      "paths/invoke?api-version=2016-06-01&sig=abc";
  std::ofstream(dir_ / "mm.url") << "https://chat.example.com/hooks/k3y\n";
  auto config = Load(R"(channels:
  - {name: ms, type: teams, url_env: TEAMS_URL, timeout: 5s}
  - {name: dc, type: discord, url: "https://discord.com/api/webhooks/1/t0k?thread_id=9",
     username: quell, avatar_url: "https://quell.example.com/a.png", group_by: [condition]}
  - {name: mm, type: mattermost, url_file: mm.url, username: quell,
     icon_url: "https://quell.example.com/i.png"}
conditions:
  - {name: errs, type: error_groups, channels: [ms, dc, mm]}
)");
  ASSERT_TRUE(config.ok()) << config.error().message;
  ASSERT_EQ(config->channels.size(), 3U);
  EXPECT_EQ(config->channels[0].type(), "teams");
  EXPECT_EQ(config->channels[0].As<channels::TeamsSettings>().url, env_["TEAMS_URL"]);
  EXPECT_EQ(config->channels[0].delivery.timeout, std::chrono::seconds(5));
  EXPECT_EQ(config->channels[1].type(), "discord");
  EXPECT_EQ(config->channels[1].As<channels::DiscordSettings>().url,
            "https://discord.com/api/webhooks/1/t0k?thread_id=9");
  EXPECT_EQ(config->channels[1].As<channels::DiscordSettings>().username, "quell");
  EXPECT_TRUE(config->channels[1].delivery.grouping.has_value());
  EXPECT_EQ(config->channels[2].type(), "mattermost");
  EXPECT_EQ(config->channels[2].As<channels::MattermostSettings>().url,
            "https://chat.example.com/hooks/k3y");
  EXPECT_EQ(config->channels[2].As<channels::MattermostSettings>().icon_url,
            "https://quell.example.com/i.png");
  for (const auto& channel : config->channels) EXPECT_TRUE(channel.unresolved_secrets.empty());
}

TEST_F(ChannelConfigTest, AnUnsetChatWebhookVariableIsRecordedNotPrinted) {
  auto config = Load(R"(channels:
  - {name: dc, type: discord, url_env: DISCORD_WEBHOOK_URL}
conditions:
  - {name: errs, type: error_groups, channels: [dc]}
)");
  ASSERT_TRUE(config.ok()) << config.error().message;
  ASSERT_EQ(config->channels[0].unresolved_secrets.size(), 1U);
  const std::string& unresolved = config->channels[0].unresolved_secrets[0];
  EXPECT_NE(unresolved.find("quell.yaml:2:40: channels[0].url_env: DISCORD_WEBHOOK_URL is not set"),
            std::string::npos)
      << unresolved;
}

TEST_F(ChannelConfigTest, BadChatWebhookSettingsNameTheirLineAndColumn) {
  const std::string route = "conditions:\n  - {name: errs, type: error_groups, channels: [x]}\n";
  ExpectError("channels:\n  - {name: x, type: teams}\n" + route,
              {"quell.yaml:2:5: channels[0]", "give exactly one of url, url_env or url_file"});
  ExpectError(
      "channels:\n  - {name: x, type: mattermost, url: \"https://a/hooks/k\", "
      "url_env: MM_URL}\n" +
          route,
      {"quell.yaml:2:", "channels[0].url", "exactly one of url, url_env or url_file"});
  ExpectError("channels:\n  - {name: x, type: teams, url: \"ftp://a/b\"}\n" + route,
              {"quell.yaml:2:33: channels[0].url", "http:// or https://"});
  ExpectError(
      "channels:\n  - {name: x, type: discord,\n     url: "
      "\"https://d/api/webhooks/1/t?wait=false\"}\n" +
          route,
      {"quell.yaml:3:11: channels[0].url", "must not set wait"});
  ExpectError(
      "channels:\n  - {name: x, type: mattermost, url: \"https://a/hooks/k\",\n"
      "     icon_url: icon.png}\n" +
          route,
      {"quell.yaml:3:16: channels[0].icon_url", "http:// or https://"});
  ExpectError(
      "channels:\n  - {name: x, type: discord, url: \"https://d/x\", channel: C1}\n" + route,
      {"quell.yaml:2:", "channels[0].channel: unknown setting"});
  // A variable holding something that is no URL is refused without being quoted.
  env_["NOT_A_URL"] = "s3cret-value-9";
  ExpectError("channels:\n  - {name: x, type: teams, url_env: NOT_A_URL}\n" + route,
              {"quell.yaml:2:", "channels[0].url_env", "must start with http:// or https://"});
  ExpectError("channels:\n  - {name: x, type: telegraph}\n" + route,
              {"quell.yaml:2:", "teams, discord or mattermost", "\"telegraph\""});
}

}  // namespace
}  // namespace quell::config
