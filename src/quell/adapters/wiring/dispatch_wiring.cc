#include "quell/adapters/wiring/dispatch_wiring.h"

#include <memory>
#include <utility>

#include "quell/adapters/channels/ack_link.h"
#include "quell/adapters/channels/discord_channel.h"
#include "quell/adapters/channels/google_chat_channel.h"
#include "quell/adapters/channels/mattermost_channel.h"
#include "quell/adapters/channels/ntfy_channel.h"
#include "quell/adapters/channels/opsgenie_channel.h"
#include "quell/adapters/channels/pagerduty_channel.h"
#include "quell/adapters/channels/slack_channel.h"
#include "quell/adapters/channels/teams_channel.h"
#include "quell/adapters/channels/telegram_channel.h"
#include "quell/adapters/channels/twilio_sms_channel.h"
#include "quell/adapters/channels/webhook_channel.h"
#include "quell/adapters/email/email_channel.h"
#include "quell/adapters/wiring/store_url.h"
#include "quell/adapters/zones/date_zone_rules.h"

namespace quell::wiring {
namespace {

template <typename T>
T Value(const std::map<std::string, std::string>& map, const char* key, T fallback) {
  const auto it = map.find(key);
  return it == map.end() ? fallback : it->second;
}

// Minutes of the day of a validated "HH:MM" (the config reader checked the shape).
int MinuteOf(const std::string& clock) {
  auto parsed = core::ParseClockTime(clock);
  return parsed ? *parsed : 0;
}

core::SmsPacingRules PacingOf(const config::SmsSettings& sms) {
  core::SmsPacingRules rules;
  rules.min_interval = sms.min_interval;
  rules.daily_cap = sms.daily_cap;
  if (sms.quiet_start && sms.quiet_end) {
    rules.quiet_hours = core::QuietHours{MinuteOf(*sms.quiet_start), MinuteOf(*sms.quiet_end)};
  }
  auto offset = core::ParseUtcOffset(sms.utc_offset);
  rules.utc_offset_minutes = offset ? *offset : 0;
  if (!sms.time_zone.empty()) {
    rules.time_zone = sms.time_zone;
    rules.zones = &zones::SystemZoneRules();
  }
  rules.quiet_hours_override = sms.quiet_override;
  return rules;
}

app::ChannelLimits LimitsOf(const config::ChannelDelivery& delivery,
                            const config::DispatchSettings& dispatch) {
  app::ChannelLimits limits;
  limits.throttle_budget = dispatch.throttle_budget;
  limits.concurrency = delivery.concurrency;
  limits.max_attempts = delivery.max_attempts;
  limits.backoff.initial_backoff = delivery.initial_backoff;
  limits.backoff.max_backoff = delivery.max_backoff;
  limits.backoff.max_retry_after = delivery.max_retry_after;
  limits.grouping = delivery.grouping;
  return limits;
}

channels::HttpTimeouts TimeoutsOf(const config::ChannelDelivery& delivery) {
  return {.connect = delivery.connect_timeout, .total = delivery.timeout};
}

// The channel's group_limit, else its type's default (templates::DefaultGroupLimit's).
size_t GroupLimit(const config::ChannelConfig& channel, size_t type_default) {
  return channel.delivery.group_limit > 0 ? channel.delivery.group_limit : type_default;
}

// Where a message's incident link starts, as the renderer makes it (link_base wins over
// public_url); ntfy's Click action. Empty: no link.
std::string LinkPrefix(const config::Config& config) {
  if (!config.dispatch.link_base.empty()) return config.dispatch.link_base;
  if (!config.http.public_url.empty()) return config.http.public_url + "/incidents/";
  return {};
}

core::Result<std::unique_ptr<core::HttpChannel>> MakeHttpChannel(
    const config::ChannelConfig& channel, const std::string& link_prefix) {
  auto erase = [](auto result) -> core::Result<std::unique_ptr<core::HttpChannel>> {
    if (!result) return result.error();
    return std::unique_ptr<core::HttpChannel>(std::move(*result));
  };
  switch (channel.type) {
    case config::ChannelType::kWebhook:
      return erase(channels::WebhookChannel::Create(
          {.url = channel.webhook.url,
           .sign = channel.webhook.signing == config::WebhookSigning::kRequired ||
                   !channel.webhook.secret.empty(),
           .secret = channel.webhook.secret,
           .timeouts = TimeoutsOf(channel.delivery),
           .group_limit = GroupLimit(channel, 1000)}));
    case config::ChannelType::kSlack: {
      channels::SlackSettings slack;
      if (channel.slack.bot_token.empty()) {
        slack.mode = channels::SlackSettings::Mode::kIncomingWebhook;
        slack.webhook_url = channel.slack.webhook_url;
      } else {
        slack.mode = channels::SlackSettings::Mode::kBotToken;
        slack.token = channel.slack.bot_token;
        slack.channel = channel.slack.channel;
        slack.api_base_url = channel.slack.api_url;
        slack.resolve_updates_root = channel.slack.resolve_updates_root;
      }
      slack.ack_button = !channel.slack.signing_secret.empty();
      slack.timeouts = TimeoutsOf(channel.delivery);
      return erase(channels::SlackChannel::Create(std::move(slack)));
    }
    case config::ChannelType::kSms:
      return erase(channels::TwilioSmsChannel::Create({.base_url = channel.sms.base_url,
                                                       .account_sid = channel.sms.account_sid,
                                                       .auth_token = channel.sms.auth_token,
                                                       .from = channel.sms.from,
                                                       .to = channel.sms.to,
                                                       .timeouts = TimeoutsOf(channel.delivery)}));
    case config::ChannelType::kPagerDuty:
      return erase(channels::PagerDutyChannel::Create({.base_url = channel.pagerduty.url,
                                                       .routing_key = channel.pagerduty.routing_key,
                                                       .source = channel.pagerduty.source,
                                                       .timeouts = TimeoutsOf(channel.delivery),
                                                       .group_limit = GroupLimit(channel, 5)}));
    case config::ChannelType::kOpsgenie:
      return erase(channels::OpsgenieChannel::Create({.api_url = channel.opsgenie.api_url,
                                                      .api_key = channel.opsgenie.api_key,
                                                      .source = channel.opsgenie.source,
                                                      .timeouts = TimeoutsOf(channel.delivery)}));
    case config::ChannelType::kGoogleChat:
      return erase(channels::GoogleChatChannel::Create(
          {.url = channel.google_chat.url, .timeouts = TimeoutsOf(channel.delivery)}));
    case config::ChannelType::kNtfy:
      return erase(channels::NtfyChannel::Create({.url = channel.ntfy.url,
                                                  .token = channel.ntfy.token,
                                                  .link_prefix = link_prefix,
                                                  .timeouts = TimeoutsOf(channel.delivery)}));
    case config::ChannelType::kTelegram:
      return erase(channels::TelegramChannel::Create({.api_url = channel.telegram.api_url,
                                                      .token = channel.telegram.token,
                                                      .chat_id = channel.telegram.chat_id,
                                                      .timeouts = TimeoutsOf(channel.delivery)}));
    case config::ChannelType::kTeams:
      return erase(channels::TeamsChannel::Create(
          {.url = channel.teams.url, .timeouts = TimeoutsOf(channel.delivery)}));
    case config::ChannelType::kDiscord:
      return erase(channels::DiscordChannel::Create({.url = channel.discord.url,
                                                     .username = channel.discord.username,
                                                     .avatar_url = channel.discord.avatar_url,
                                                     .timeouts = TimeoutsOf(channel.delivery)}));
    case config::ChannelType::kMattermost:
      return erase(channels::MattermostChannel::Create({.url = channel.mattermost.url,
                                                        .username = channel.mattermost.username,
                                                        .icon_url = channel.mattermost.icon_url,
                                                        .timeouts = TimeoutsOf(channel.delivery)}));
    case config::ChannelType::kEmail:
      break;
  }
  return core::MakeError(core::ErrorCode::kInvalidArgument, "not an HTTP channel");
}

core::Error Fail(const config::ChannelConfig& channel, const core::Error& error) {
  return core::Error{error.code, "channel \"" + channel.name + "\": " + error.message};
}

}  // namespace

templates::RendererOptions RendererOptionsFor(const config::Config& config) {
  templates::RendererOptions renderer;
  renderer.view.link_base_url = config.dispatch.link_base;
  renderer.view.public_url = config.http.public_url;
  if (!config.http.ack_link_secret.empty() && !config.http.public_url.empty()) {
    auto signer = std::make_shared<channels::AckLinkSigner>(
        config.http.ack_link_secret, config.http.public_url, config.http.ack_link_ttl);
    renderer.view.ack_link = [signer](std::string_view key, uint64_t generation,
                                      core::WallTime issued_at) {
      return signer->Link(key, generation, issued_at);
    };
    renderer.view.group_ack_link = [signer](std::string_view channel, std::string_view group_key,
                                            uint64_t episode, core::WallTime issued_at) {
      return signer->GroupLink(channel, group_key, episode, issued_at);
    };
  }
  for (const auto& [condition, severity] : config.condition_severity) {
    renderer.view.condition_severity.emplace(condition, severity);
  }
  for (const config::ChannelConfig& channel : config.channels) {
    if (channel.type == config::ChannelType::kSms) {
      renderer.sms_max_segments = channel.sms.max_segments;
    }
    if (channel.delivery.group_limit > 0) {
      renderer.group_limits.emplace(channel.name, channel.delivery.group_limit);
    }
    const auto& parts = channel.delivery.templates;
    renderer.channels.emplace(channel.name, templates::ChannelTemplates{
                                                .type = config::ChannelTypeName(channel.type),
                                                .subject = Value<std::string>(parts, "subject", ""),
                                                .body = Value<std::string>(parts, "body", "")});
    for (const auto& [part, where] : channel.delivery.template_where) {
      renderer.template_where.emplace(channel.name + "." + part, where);
    }
  }
  return renderer;
}

app::ChannelLimits ChannelLimitsFor(const config::ChannelConfig& channel,
                                    const config::Config& config) {
  app::ChannelLimits limits = LimitsOf(channel.delivery, config.dispatch);
  if (channel.type == config::ChannelType::kSms) limits.pacing = PacingOf(channel.sms);
  return limits;
}

app::DispatcherOptions DispatcherOptionsFor(const config::Config& config, std::string owner) {
  app::DispatcherOptions options;
  options.owner = std::move(owner);
  options.lease = config.dispatch.lease;
  options.claim_batch = config.dispatch.batch;
  options.record_every = config.dispatch.record_every;
  options.dead_letter_channel = config.dispatch.dead_letter;
  options.dead_letter_interval = config.dispatch.dead_letter_interval;
  if (config.retention.outbox.count() > 0) options.outbox_retention = config.retention.outbox;
  return options;
}

std::vector<std::string> ChannelProblems(const config::Config& config, core::Clock& clock) {
  std::vector<std::string> problems;
  for (const config::ChannelConfig& channel : config.channels) {
    problems.insert(problems.end(), channel.unresolved_secrets.begin(),
                    channel.unresolved_secrets.end());
    if (!channel.unresolved_secrets.empty()) continue;  // built without them, it would mislead
    core::Status built;
    if (channel.type == config::ChannelType::kEmail) {
      email::EmailSettings settings;
      settings.name = channel.name;
      settings.url = channel.email.url;
      settings.username = channel.email.username;
      settings.password = channel.email.password;
      settings.from = channel.email.from;
      settings.to = channel.email.to;
      settings.message_id_domain = channel.email.message_id_domain;
      auto made = email::EmailChannel::Create(std::move(settings), clock);
      if (!made) built = made.error();
    } else {
      auto made = MakeHttpChannel(channel, LinkPrefix(config));
      if (!made) built = made.error();
    }
    if (!built) problems.push_back(channel.where + ": " + Fail(channel, built.error()).message);
  }
  std::vector<std::string> templates = templates::TemplateProblems(RendererOptionsFor(config));
  problems.insert(problems.end(), templates.begin(), templates.end());
  return problems;
}

core::Result<std::unique_ptr<DispatchWiring>> DispatchWiring::Create(
    const config::Config& config, core::OutboxStore& store, core::Clock& clock, std::string owner,
    const std::string& claim_ahead_url) {
  // The loader lets a config with unresolved channel secrets through for the poller; sending
  // needs every one.
  for (const config::ChannelConfig& channel : config.channels) {
    if (!channel.unresolved_secrets.empty()) {
      return core::MakeError(core::ErrorCode::kInvalidArgument, channel.unresolved_secrets[0]);
    }
  }
  // The messages would go out without the ack links the config asks for.
  if (!config.http.ack_link_secret_unresolved.empty()) {
    return core::MakeError(core::ErrorCode::kInvalidArgument,
                           config.http.ack_link_secret_unresolved);
  }
  std::unique_ptr<DispatchWiring> wiring(new DispatchWiring());
  curl::CurlOptions curl_options;
  size_t max_concurrency = 8;
  for (const config::ChannelConfig& channel : config.channels) {
    // One multi handle serves every HTTP channel, so one CA file: the first channel's that
    // names one (tests use a private CA; production uses the system bundle).
    if (curl_options.ca_file.empty()) curl_options.ca_file = channel.delivery.ca_file;
    max_concurrency += channel.delivery.concurrency;
  }
  curl_options.max_idle_handles = max_concurrency;
  wiring->http_ = std::make_unique<curl::CurlMultiClient>(curl_options);

  templates::RendererOptions renderer = RendererOptionsFor(config);
  if (auto checked = templates::CheckTemplates(renderer); !checked) return checked.error();
  wiring->renderer_ = std::make_unique<templates::MustacheRenderer>(std::move(renderer));

  wiring->dispatcher_ =
      std::make_unique<app::Dispatcher>(store, *wiring->renderer_, *wiring->http_, clock,
                                        DispatcherOptionsFor(config, std::move(owner)));
  if (!claim_ahead_url.empty()) {
    auto ahead = OpenStore(claim_ahead_url);
    if (!ahead) return ahead.error();
    wiring->claim_ahead_store_ = std::make_unique<core::Store>(std::move(*ahead));
    wiring->dispatcher_->ClaimAheadWith(wiring->claim_ahead_store_->outbox());
  }

  for (const config::ChannelConfig& channel : config.channels) {
    const std::string type = config::ChannelTypeName(channel.type);
    if (channel.type == config::ChannelType::kEmail) {
      email::EmailSettings settings;
      settings.name = channel.name;
      settings.url = channel.email.url;
      settings.starttls =
          channel.email.starttls_required ? email::StartTls::kRequired : email::StartTls::kOptional;
      settings.ca_file = channel.delivery.ca_file;
      settings.username = channel.email.username;
      settings.password = channel.email.password;
      settings.from = channel.email.from;
      settings.to = channel.email.to;
      settings.message_id_domain = channel.email.message_id_domain;
      settings.connect_timeout = channel.delivery.connect_timeout;
      settings.timeout = channel.delivery.timeout;
      auto made = email::EmailChannel::Create(std::move(settings), clock);
      if (!made) return Fail(channel, made.error());
      wiring->dispatcher_->AddChannel(channel.name, type, **made,
                                      ChannelLimitsFor(channel, config));
      wiring->channels_.push_back(std::move(*made));
      continue;
    }
    auto made = MakeHttpChannel(channel, LinkPrefix(config));
    if (!made) return Fail(channel, made.error());
    wiring->dispatcher_->AddHttpChannel(channel.name, type, **made,
                                        ChannelLimitsFor(channel, config));
    wiring->http_channels_.push_back(std::move(*made));
  }
  return wiring;
}

}  // namespace quell::wiring
