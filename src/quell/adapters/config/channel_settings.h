#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "quell/core/delivery/grouping.h"
#include "quell/core/text/time.h"

namespace quell::config {

// Settings shared by every channel type: how the dispatcher drives it and how it renders.
struct ChannelDelivery {
  uint32_t concurrency = 8;
  uint32_t max_attempts = 8;
  core::Duration initial_backoff = std::chrono::seconds(1);
  core::Duration max_backoff = std::chrono::minutes(10);
  core::Duration max_retry_after = std::chrono::hours(1);
  core::Duration connect_timeout = std::chrono::seconds(5);
  core::Duration timeout = std::chrono::seconds(10);
  std::string ca_file;  // empty: the system's CA bundle
  // Members a group message lists before "… and N more"; 0: the type's default (webhook 1000,
  // email 50, Slack 20, Opsgenie 20, PagerDuty 5, SMS 3, Teams 20, Discord 10, Mattermost 50,
  // Google Chat 20, Telegram 10, ntfy 5). Counts always cover every member.
  uint32_t group_limit = 0;
  std::map<std::string, std::string> templates;  // part ("subject", "body", ...) -> mustache text
  // part -> "file:line:column: channels[i].templates.part", for template errors
  std::map<std::string, std::string> template_where;
  // group_by / group_wait / group_interval; nullopt (no group_by): one message per transition.
  std::optional<core::GroupPolicy> grouping;
};

// Whether a webhook's requests carry X-Quell-Signature. Signing is the default; a receiver
// that checks nothing (a first trial against a request bin, a chat bridge) is said so
// explicitly, and `when_set` lets one config serve both: signed once the variable is set.
enum class WebhookSigning : uint8_t {
  kRequired,  // secret_env / secret_file must resolve, or `quell dispatch` refuses to start
  kWhenSet,   // secret_env unset: send unsigned, and say so at every start
  kOff,       // never signed; a secret reference is a contradiction
};

struct WebhookSettings {
  std::string url;
  WebhookSigning signing = WebhookSigning::kRequired;
  std::string secret;  // HMAC-SHA256 key; from secret_env / secret_file, never inline; empty:
                       // unsigned (only when signing is not kRequired)
};

struct SlackSettings {
  std::string webhook_url;  // incoming-webhook mode; the URL is a credential
  std::string bot_token;    // bot mode: chat.postMessage, thread replies, chat.update
  std::string channel;      // bot mode: the channel id
  std::string api_url = "https://slack.com/api";
  bool resolve_updates_root = true;  // bot mode: a resolve edits the open's message
  // The Slack app's signing secret (`signing_secret_env` / `_file`): messages then carry an
  // Acknowledge button whose clicks POST /v1/slack/interactivity checks against it.
  std::string signing_secret;
};

struct EmailSettings {
  std::string url;  // smtp://host:587 (STARTTLS) or smtps://host:465
  bool starttls_required = true;
  std::string username;
  std::string password;
  std::string from;
  std::vector<std::string> to;
  std::string message_id_domain = "quell.invalid";
};

// One SMS channel is one recipient, so its pacing rules are that recipient's.
struct SmsSettings {
  std::string base_url = "https://api.twilio.com";
  std::string account_sid;
  std::string auth_token;
  std::string from;
  std::string to;
  core::Duration min_interval = std::chrono::minutes(10);
  uint32_t daily_cap = 20;
  std::optional<std::string> quiet_start;  // "HH:MM" local to utc_offset
  std::optional<std::string> quiet_end;
  std::string utc_offset = "+00:00";
  std::string time_zone;  // IANA name: quiet hours follow its daylight-saving changes
  std::vector<std::string> quiet_override = {"critical"};  // severities sent in quiet hours
  uint32_t max_segments = 2;
};

struct PagerDutySettings {
  std::string url = "https://events.pagerduty.com";
  std::string routing_key;
  std::string source = "quell";  // payload.source: where PagerDuty shows the alert came from
  // The v3 webhook subscription's signing secret (`webhook_secret_env` / `_file`): PagerDuty's
  // acks and resolves of quell's alerts then reach quell at POST /v1/pagerduty/webhook.
  std::string webhook_secret;
};

// Opsgenie's Alert API (type: opsgenie).
struct OpsgenieSettings {
  std::string api_url = "https://api.opsgenie.com";  // EU accounts: https://api.eu.opsgenie.com
  std::string api_key;           // from api_key_env / api_key_file, never inline
  std::string source = "quell";  // the alert's source field
};

// Google Chat, ntfy and Telegram.
struct GoogleChatSettings {
  std::string url;  // the space's incoming-webhook URL (its key and token are credentials)
};

struct NtfySettings {
  std::string url;    // the topic URL, e.g. https://ntfy.sh/mytopic
  std::string token;  // optional access token (`token_env` / `token_file`)
};

struct TelegramSettings {
  std::string api_url = "https://api.telegram.org";
  std::string chat_id;  // "123", "-100123..." or "@channelname"
  std::string token;    // the bot token (`token_env` / `token_file`), required
};

// Chat webhooks whose URL is the credential: `url` (inline, usually
// "${VAR}"), `url_env` or `url_file`, exactly one.
struct TeamsSettings {
  std::string url;  // the Workflows trigger URL, signature (sig=) in its query
};

struct DiscordSettings {
  std::string url;  // https://discord.com/api/webhooks/<id>/<token>[?thread_id=...]
  std::string username;
  std::string avatar_url;
};

struct MattermostSettings {
  std::string url;  // https://<server>/hooks/<key>
  std::string username;
  std::string icon_url;
};

enum class ChannelType : uint8_t {
  kWebhook,
  kSlack,
  kEmail,
  kSms,
  kPagerDuty,
  kOpsgenie,
  kGoogleChat,
  kNtfy,
  kTelegram,
  kTeams,
  kDiscord,
  kMattermost,
};

const char* ChannelTypeName(ChannelType type);

struct ChannelConfig {
  std::string name;
  std::string where;  // "file:line:column: channels[i]", for problems found when it is built
  ChannelType type = ChannelType::kWebhook;
  ChannelDelivery delivery;
  WebhookSettings webhook;
  SlackSettings slack;
  EmailSettings email;
  SmsSettings sms;
  PagerDutySettings pagerduty;
  OpsgenieSettings opsgenie;
  GoogleChatSettings google_chat;
  NtfySettings ntfy;
  TelegramSettings telegram;
  TeamsSettings teams;
  DiscordSettings discord;
  MattermostSettings mattermost;
  // Located messages for secrets whose variable is unset or whose file cannot be read: the
  // poller routes to the channel without them; `quell dispatch` refuses to start.
  std::vector<std::string> unresolved_secrets;
  // Those of them a callback needs (Slack's signing secret, PagerDuty's webhook secret):
  // `quell run` refuses to start with them even with --no-dispatch, since its HTTP surface
  // checks the callbacks.
  std::vector<std::string> unresolved_callbacks;
};

// At most `per_hour` notifications per tenant per hour on each channel; the excess is folded
// into one digest message at the end of the hour. The tenant is the incident key up to its
// first ':' (the default key templates start with the tenant).
struct TenantBudget {
  uint32_t per_hour = 0;  // 0: no budget
};

struct DispatchSettings {
  core::Duration lease = std::chrono::seconds(60);
  uint32_t batch = 256;
  // Outcomes recorded per store transaction: fewer, larger transactions cost the store less
  // (PostgreSQL at concurrency 64: about 4,800 sends/s at 64, 6,000 at 256); a dispatcher
  // that dies loses at most this many records, whose rows are re-sent with the same key.
  uint32_t record_every = 256;
  // Between claims when nothing was due. It bounds commit-to-delivery latency: at 1s alone p99
  // measured over 1s (docs/benchmarks.md); an idle claim is one indexed query.
  core::Duration idle_interval = std::chrono::milliseconds(100);
  std::string dead_letter;  // the channel dead-letter notices go to; empty: none
  // One dead-letter notice per this interval at most, listing the rows that died in it; it
  // is sent at the interval's end (windows aligned to the epoch, e.g. every 5 minutes).
  core::Duration dead_letter_interval = std::chrono::minutes(5);
  // Messages link to link_base + the percent-encoded key when set; this wins over
  // http.public_url, whose link is public_url + "/v1/incidents/" + the key.
  std::string link_base;
  TenantBudget budget;
  // How long a row answered 429/503 keeps being retried (honouring Retry-After) before it
  // goes dead; such answers do not count against a channel's max_attempts.
  core::Duration throttle_budget = std::chrono::hours(6);
};

}  // namespace quell::config
