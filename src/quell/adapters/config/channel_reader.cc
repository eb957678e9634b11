#include "quell/adapters/config/channel_reader.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "quell/adapters/config/secret_reader.h"
#include "quell/adapters/zones/date_zone_rules.h"

namespace quell::config {
namespace {

bool ValidClock(const std::string& text) {
  if (text.size() != 5 || text[2] != ':') return false;
  for (const size_t i : {0U, 1U, 3U, 4U}) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return false;
  }
  return std::stoi(text.substr(0, 2)) < 24 && std::stoi(text.substr(3, 2)) < 60;
}

bool ValidOffset(const std::string& text) {
  return text.size() == 6 && (text[0] == '+' || text[0] == '-') && ValidClock(text.substr(1));
}

void RequireUrl(MapReader& item, const char* key, const std::string& url,
                std::initializer_list<const char*> schemes) {
  if (url.empty()) {
    item.Fail(key, "a URL is required");
    return;
  }
  for (const char* scheme : schemes) {
    if (url.starts_with(scheme)) return;
  }
  std::string expected;
  for (const char* scheme : schemes) {
    if (!expected.empty()) expected += " or ";
    expected += scheme;
  }
  item.Fail(key, "expected a URL starting with " + expected);
}

// The secret's value; an unresolved reference is kept for `quell dispatch` to report.
std::string Secret(MapReader& item, std::string_view name, const std::filesystem::path& dir,
                   bool required, std::vector<std::string>& unresolved) {
  SecretRef secret = ReadSecret(item, name, dir, required);
  if (!secret.unresolved.empty()) unresolved.push_back(std::move(secret.unresolved));
  return std::move(secret.value);
}

// A callback's signing secret: unresolved, it is also kept in `callbacks`, since the HTTP
// surface that checks the callbacks needs it even where this process sends nothing.
std::string CallbackSecret(MapReader& item, std::string_view name, const std::filesystem::path& dir,
                           std::vector<std::string>& unresolved,
                           std::vector<std::string>& callbacks) {
  const size_t before = unresolved.size();
  std::string value = Secret(item, name, dir, false, unresolved);
  if (unresolved.size() > before) callbacks.push_back(unresolved.back());
  return value;
}

// group_by, group_wait, group_interval: absent group_by leaves the channel ungrouped, and then
// the two durations would mean nothing, so they are refused rather than ignored.
void ReadGrouping(MapReader& item, ChannelDelivery& delivery) {
  if (!item.Has("group_by")) {
    for (const char* key : {"group_wait", "group_interval"}) {
      if (item.Has(key)) item.Fail(key, "needs group_by (the labels or condition to group on)");
    }
    core::Duration unused{};
    item.Read("group_wait", unused);
    item.Read("group_interval", unused);
    return;
  }
  core::GroupPolicy policy;
  item.ReadNameList("group_by", policy.group_by);
  item.Read("group_wait", policy.group_wait);
  item.Read("group_interval", policy.group_interval);
  if (policy.group_interval.count() <= 0) item.Fail("group_interval", "must be positive");
  if (!policy.group_by.empty()) delivery.grouping = std::move(policy);
}

void ReadDelivery(MapReader& item, ChannelDelivery& delivery) {
  item.Read("concurrency", delivery.concurrency, 1, 1024);
  item.Read("max_attempts", delivery.max_attempts, 1, 100);
  item.Read("initial_backoff", delivery.initial_backoff);
  item.Read("max_backoff", delivery.max_backoff);
  item.Read("max_retry_after", delivery.max_retry_after);
  item.Read("connect_timeout", delivery.connect_timeout);
  item.Read("timeout", delivery.timeout);
  item.Read("ca_file", delivery.ca_file);
  ReadGrouping(item, delivery);
  item.Read("group_limit", delivery.group_limit, 1, 1000);
  core::Labels templates;
  item.Read("templates", templates);
  if (!templates.empty()) {
    const MapReader parts = item.Child("templates");
    for (const auto& [part, text] : templates) {
      delivery.template_where.emplace(part, parts.Locate(part));
    }
  }
  for (auto& [part, text] : templates) delivery.templates.emplace(part, std::move(text));
  if (delivery.timeout.count() <= 0) item.Fail("timeout", "must be positive");
  // The connection is part of the exchange the total timeout bounds. A short `timeout` alone
  // (1s, for a fast receiver) brings the default connect timeout down with it instead of
  // failing later, when `quell dispatch` builds the channel, with no line to point at.
  if (delivery.connect_timeout > delivery.timeout) {
    if (item.Has("connect_timeout")) {
      item.Fail("connect_timeout",
                "must not exceed timeout (" + core::FormatDuration(delivery.timeout) + ")");
    } else {
      delivery.connect_timeout = delivery.timeout;
    }
  }
}

void ReadWebhook(MapReader& item, const std::filesystem::path& dir, const std::string& name,
                 WebhookSettings& out, std::vector<std::string>& unresolved,
                 std::vector<std::string>& warnings) {
  item.Read("url", out.url);
  RequireUrl(item, "url", out.url, {"http://", "https://"});
  std::string signing = "required";
  item.Read("signing", signing);
  if (signing == "required") {
    out.signing = WebhookSigning::kRequired;
  } else if (signing == "when_set") {
    out.signing = WebhookSigning::kWhenSet;
  } else if (signing == "off") {
    out.signing = WebhookSigning::kOff;
  } else {
    item.Fail("signing", "expected required, when_set or off, got \"" + signing + "\"");
    return;
  }
  if (out.signing == WebhookSigning::kOff) {
    if (item.Has("secret_env") || item.Has("secret_file")) {
      item.Fail("signing",
                "off sends unsigned requests, so the secret reference is unused: "
                "remove it or use when_set");
      std::string unused;  // read, so Finish() does not report it a second time
      item.Read("secret_env", unused);
      item.Read("secret_file", unused);
    }
    warnings.push_back(item.Locate("signing") + ": channel \"" + name +
                       "\" sends unsigned requests (signing: off)");
    return;
  }
  SecretRef secret = ReadSecret(item, "secret", dir, true);
  out.secret = std::move(secret.value);
  if (secret.unresolved.empty()) return;
  // An unset variable is what when_set allows; an unreadable secret_file is still a mistake.
  if (out.signing == WebhookSigning::kWhenSet && !item.Has("secret_file")) {
    warnings.push_back(secret.unresolved + ": channel \"" + name +
                       "\" sends unsigned requests until it is (signing: when_set)");
  } else {
    unresolved.push_back(std::move(secret.unresolved));
  }
}

void ReadSlack(MapReader& item, const std::filesystem::path& dir, SlackSettings& out,
               std::vector<std::string>& unresolved, std::vector<std::string>& callbacks) {
  const bool hook = item.Has("webhook_url_env") || item.Has("webhook_url_file");
  const bool bot = item.Has("bot_token_env") || item.Has("bot_token_file");
  out.webhook_url = Secret(item, "webhook_url", dir, hook, unresolved);
  out.bot_token = Secret(item, "bot_token", dir, bot, unresolved);
  item.Read("channel", out.channel);
  item.Read("api_url", out.api_url);
  item.Read("resolve_updates_root", out.resolve_updates_root);
  out.signing_secret = CallbackSecret(item, "signing_secret", dir, unresolved, callbacks);
  if (hook == bot) {
    item.Fail("",
              "give exactly one of webhook_url_env/_file (incoming webhook) or "
              "bot_token_env/_file (bot token)");
  } else if (bot && out.channel.empty()) {
    item.Fail("channel", "a bot token needs the channel id to post to");
  }
}

void ReadEmail(MapReader& item, const std::filesystem::path& dir, EmailSettings& out,
               std::vector<std::string>& unresolved) {
  item.Read("url", out.url);
  RequireUrl(item, "url", out.url, {"smtp://", "smtps://"});
  std::string starttls = "required";
  item.Read("starttls", starttls);
  if (starttls == "required") {
    out.starttls_required = true;
  } else if (starttls == "optional") {
    out.starttls_required = false;
  } else {
    item.Fail("starttls", "expected required or optional");
  }
  item.Read("username", out.username);
  out.password = Secret(item, "password", dir, false, unresolved);
  item.Read("from", out.from);
  item.Read("to", out.to);
  item.Read("message_id_domain", out.message_id_domain);
  if (out.from.find('@') == std::string::npos) item.Fail("from", "a sender address is required");
  if (out.to.empty()) item.Fail("to", "at least one recipient is required");
}

void ReadSms(MapReader& item, const std::filesystem::path& dir, SmsSettings& out,
             std::vector<std::string>& unresolved, std::vector<std::string>& warnings) {
  item.Read("base_url", out.base_url);
  RequireUrl(item, "base_url", out.base_url, {"http://", "https://"});
  item.Read("account_sid", out.account_sid);
  out.auth_token = Secret(item, "auth_token", dir, true, unresolved);
  item.Read("from", out.from);
  item.Read("to", out.to);
  item.Read("min_interval", out.min_interval);
  item.Read("daily_cap", out.daily_cap, 1, 10000);
  item.Read("max_segments", out.max_segments, 1, 10);
  if (out.account_sid.empty()) item.Fail("account_sid", "the account SID is required");
  if (out.from.empty()) item.Fail("from", "the sending number is required");
  if (out.to.empty()) item.Fail("to", "the recipient number is required");
  if (item.Has("quiet_hours")) {
    MapReader quiet = item.Child("quiet_hours");
    std::string start;
    std::string end;
    quiet.Read("start", start);
    quiet.Read("end", end);
    quiet.Read("utc_offset", out.utc_offset);
    quiet.Read("time_zone", out.time_zone);
    if (quiet.Has("utc_offset") && quiet.Has("time_zone")) {
      quiet.Fail("utc_offset", "give time_zone or utc_offset, not both");
    } else if (!out.time_zone.empty()) {
      if (auto known = zones::SystemZoneRules().CheckZone(out.time_zone); !known) {
        quiet.Fail("time_zone", known.error().message);
      }
    } else if (quiet.Has("utc_offset")) {
      warnings.push_back(quiet.Locate("utc_offset") +
                         ": a fixed offset is wrong on one side of every daylight-saving change; "
                         "give time_zone (an IANA name such as Europe/Berlin) instead");
    }
    quiet.Read("override", out.quiet_override);
    if (!ValidClock(start)) quiet.Fail("start", "expected HH:MM, e.g. 22:00");
    if (!ValidClock(end)) quiet.Fail("end", "expected HH:MM, e.g. 07:00");
    if (!ValidOffset(out.utc_offset)) quiet.Fail("utc_offset", "expected +HH:MM or -HH:MM");
    for (const std::string& severity : out.quiet_override) {
      if (!IsSeverity(severity)) {
        quiet.Fail("override", "expected severities (critical, error, warning, info), got \"" +
                                   severity + "\"");
      }
    }
    quiet.Finish();
    out.quiet_start = start;
    out.quiet_end = end;
  }
}

void ReadPagerDuty(MapReader& item, const std::filesystem::path& dir, PagerDutySettings& out,
                   std::vector<std::string>& unresolved, std::vector<std::string>& callbacks) {
  item.Read("url", out.url);
  RequireUrl(item, "url", out.url, {"http://", "https://"});
  out.routing_key = Secret(item, "routing_key", dir, true, unresolved);
  out.webhook_secret = CallbackSecret(item, "webhook_secret", dir, unresolved, callbacks);
  item.Read("source", out.source);
  if (out.source.empty()) item.Fail("source", "must not be empty (default \"quell\")");
}

// Opsgenie's Alert API: the key is a credential, so only by reference.
void ReadOpsgenie(MapReader& item, const std::filesystem::path& dir, OpsgenieSettings& out,
                  std::vector<std::string>& unresolved) {
  item.Read("api_url", out.api_url);
  RequireUrl(item, "api_url", out.api_url, {"http://", "https://"});
  out.api_key = Secret(item, "api_key", dir, true, unresolved);
  item.Read("source", out.source);
  if (out.source.empty() || out.source.size() > 100) {
    item.Fail("source", "expected 1 to 100 characters (default \"quell\")");
  }
}

// The URL of a chat webhook that is itself the credential: exactly one of `url` (inline; the
// docs recommend "${VAR}"), `url_env` or `url_file`. The value is checked to be http(s) without
// ever being quoted.
std::string ReadCredentialUrl(MapReader& item, const std::filesystem::path& dir,
                              std::vector<std::string>& unresolved) {
  const int given =
      (item.Has("url") ? 1 : 0) + (item.Has("url_env") ? 1 : 0) + (item.Has("url_file") ? 1 : 0);
  if (given != 1) {
    item.Fail(given == 0 ? "" : "url", "give exactly one of url, url_env or url_file");
    std::string unused;  // read, so Finish() does not report them a second time
    item.Read("url", unused);
    item.Read("url_env", unused);
    item.Read("url_file", unused);
    return {};
  }
  std::string url;
  if (item.Has("url")) {
    item.Read("url", url);
    RequireUrl(item, "url", url, {"http://", "https://"});
    return url;
  }
  const bool from_file = item.Has("url_file");
  url = Secret(item, "url", dir, true, unresolved);
  if (!url.empty() && !url.starts_with("http://") && !url.starts_with("https://")) {
    item.Fail(from_file ? "url_file" : "url_env",
              "the URL it holds must start with http:// or https://");
  }
  return url;
}

void ReadGoogleChat(MapReader& item, const std::filesystem::path& dir, GoogleChatSettings& out,
                    std::vector<std::string>& unresolved) {
  out.url = ReadCredentialUrl(item, dir, unresolved);
}

// The topic URL's last path segment: ntfy's topic names are 1-64 letters, digits, '-' or '_'.
bool IsNtfyTopicUrl(const std::string& url) {
  const size_t authority = url.find("://");
  if (authority == std::string::npos || url.find_first_of("?# ") != std::string::npos) {
    return false;
  }
  const size_t slash = url.rfind('/');
  if (slash < authority + 3) return false;
  const std::string topic = url.substr(slash + 1);
  if (topic.empty() || topic.size() > 64) return false;
  for (const char c : topic) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  }
  return true;
}

void ReadNtfy(MapReader& item, const std::filesystem::path& dir, NtfySettings& out,
              std::vector<std::string>& unresolved) {
  item.Read("url", out.url);
  RequireUrl(item, "url", out.url, {"https://", "http://"});
  if (!out.url.empty() && (out.url.starts_with("https://") || out.url.starts_with("http://")) &&
      !IsNtfyTopicUrl(out.url)) {
    item.Fail("url",
              "expected a topic URL such as https://ntfy.sh/mytopic (a topic of 1-64 letters, "
              "digits, '-' or '_', no query)");
  }
  out.token = Secret(item, "token", dir, false, unresolved);
}

// A user's or group's numeric id ("-100..." for supergroups and channels) or "@channelname".
bool IsTelegramChatId(const std::string& id) {
  if (id.empty()) return false;
  if (id[0] == '@') {
    if (id.size() < 6 || id.size() > 33) return false;
    for (size_t i = 1; i < id.size(); ++i) {
      if (!std::isalnum(static_cast<unsigned char>(id[i])) && id[i] != '_') return false;
    }
    return true;
  }
  const size_t digits = id[0] == '-' ? 1 : 0;
  if (digits >= id.size() || id.size() > 20) return false;
  for (size_t i = digits; i < id.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(id[i]))) return false;
  }
  return true;
}

void ReadTelegram(MapReader& item, const std::filesystem::path& dir, TelegramSettings& out,
                  std::vector<std::string>& unresolved) {
  item.Read("api_url", out.api_url);
  RequireUrl(item, "api_url", out.api_url, {"https://", "http://"});
  item.Read("chat_id", out.chat_id);
  if (!IsTelegramChatId(out.chat_id)) {
    item.Fail("chat_id", out.chat_id.empty()
                             ? "the chat to post to is required (a numeric id, e.g. "
                               "\"-1001234567890\", or \"@channelname\")"
                             : "expected a numeric chat id (e.g. \"-1001234567890\") or "
                               "\"@channelname\"");
  }
  out.token = Secret(item, "token", dir, true, unresolved);
}

void ReadTeams(MapReader& item, const std::filesystem::path& dir, TeamsSettings& out,
               std::vector<std::string>& unresolved) {
  out.url = ReadCredentialUrl(item, dir, unresolved);
}

void ReadDiscord(MapReader& item, const std::filesystem::path& dir, DiscordSettings& out,
                 std::vector<std::string>& unresolved) {
  out.url = ReadCredentialUrl(item, dir, unresolved);
  item.Read("username", out.username);
  item.Read("avatar_url", out.avatar_url);
  if (!out.avatar_url.empty()) {
    RequireUrl(item, "avatar_url", out.avatar_url, {"http://", "https://"});
  }
  // Where the URL was given, for the two checks of its value below.
  const char* given = item.Has("url") ? "url" : item.Has("url_env") ? "url_env" : "url_file";
  if (out.url.find('#') != std::string::npos) {
    item.Fail(given, "a Discord webhook URL has no fragment (#...)");
  }
  const size_t query = out.url.find('?');
  if (query != std::string::npos &&
      ("&" + out.url.substr(query + 1)).find("&wait=") != std::string::npos) {
    item.Fail(given, "must not set wait: quell adds wait=true to learn the message id");
  }
}

void ReadMattermost(MapReader& item, const std::filesystem::path& dir, MattermostSettings& out,
                    std::vector<std::string>& unresolved) {
  out.url = ReadCredentialUrl(item, dir, unresolved);
  item.Read("username", out.username);
  item.Read("icon_url", out.icon_url);
  if (!out.icon_url.empty()) RequireUrl(item, "icon_url", out.icon_url, {"http://", "https://"});
}

}  // namespace

bool IsConfigName(const std::string& name) {
  if (name.empty() || name.size() > 100) return false;
  for (const char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') {
      return false;
    }
  }
  return true;
}

bool IsSeverity(const std::string& severity) {
  return severity == "critical" || severity == "error" || severity == "warning" ||
         severity == "info";
}

const char* ChannelTypeName(ChannelType type) {
  switch (type) {
    case ChannelType::kWebhook:
      return "webhook";
    case ChannelType::kSlack:
      return "slack";
    case ChannelType::kEmail:
      return "email";
    case ChannelType::kSms:
      return "sms";
    case ChannelType::kPagerDuty:
      return "pagerduty";
    case ChannelType::kOpsgenie:
      return "opsgenie";
    case ChannelType::kGoogleChat:
      return "google_chat";
    case ChannelType::kNtfy:
      return "ntfy";
    case ChannelType::kTelegram:
      return "telegram";
    case ChannelType::kTeams:
      return "teams";
    case ChannelType::kDiscord:
      return "discord";
    case ChannelType::kMattermost:
      return "mattermost";
  }
  return "webhook";
}

void ReadChannels(MapReader& top, const std::filesystem::path& dir, Config& config) {
  std::set<std::string> names;
  for (MapReader& item : top.Items("channels")) {
    ChannelConfig channel;
    channel.where = item.Locate("");
    item.Read("name", channel.name);
    if (!IsConfigName(channel.name)) {
      item.Fail("name", "a name of letters, digits, '-', '_' or '.' is required");
    } else if (!names.insert(channel.name).second) {
      item.Fail("name", "\"" + channel.name + "\" names two channels");
    }
    ReadDelivery(item, channel.delivery);
    std::string type;
    item.Read("type", type);
    if (type == "webhook") {
      channel.type = ChannelType::kWebhook;
      ReadWebhook(item, dir, channel.name, channel.webhook, channel.unresolved_secrets,
                  config.warnings);
    } else if (type == "slack") {
      channel.type = ChannelType::kSlack;
      ReadSlack(item, dir, channel.slack, channel.unresolved_secrets, channel.unresolved_callbacks);
    } else if (type == "email") {
      channel.type = ChannelType::kEmail;
      ReadEmail(item, dir, channel.email, channel.unresolved_secrets);
    } else if (type == "sms") {
      channel.type = ChannelType::kSms;
      ReadSms(item, dir, channel.sms, channel.unresolved_secrets, config.warnings);
    } else if (type == "pagerduty") {
      channel.type = ChannelType::kPagerDuty;
      ReadPagerDuty(item, dir, channel.pagerduty, channel.unresolved_secrets,
                    channel.unresolved_callbacks);
    } else if (type == "opsgenie") {
      channel.type = ChannelType::kOpsgenie;
      ReadOpsgenie(item, dir, channel.opsgenie, channel.unresolved_secrets);
    } else if (type == "google_chat") {
      channel.type = ChannelType::kGoogleChat;
      ReadGoogleChat(item, dir, channel.google_chat, channel.unresolved_secrets);
    } else if (type == "ntfy") {
      channel.type = ChannelType::kNtfy;
      ReadNtfy(item, dir, channel.ntfy, channel.unresolved_secrets);
    } else if (type == "telegram") {
      channel.type = ChannelType::kTelegram;
      ReadTelegram(item, dir, channel.telegram, channel.unresolved_secrets);
    } else if (type == "teams") {
      channel.type = ChannelType::kTeams;
      ReadTeams(item, dir, channel.teams, channel.unresolved_secrets);
    } else if (type == "discord") {
      channel.type = ChannelType::kDiscord;
      ReadDiscord(item, dir, channel.discord, channel.unresolved_secrets);
    } else if (type == "mattermost") {
      channel.type = ChannelType::kMattermost;
      ReadMattermost(item, dir, channel.mattermost, channel.unresolved_secrets);
    } else {
      item.Fail("type",
                "expected webhook, slack, email, sms, pagerduty, opsgenie, google_chat, ntfy, "
                "telegram, teams, discord or mattermost, got \"" +
                    type + "\"");
    }
    item.Finish();
    config.channels.push_back(std::move(channel));
  }
}

void ReadDispatch(MapReader section, Config& config) {
  DispatchSettings& dispatch = config.dispatch;
  section.Read("lease", dispatch.lease);
  section.Read("batch", dispatch.batch, 1, 100000);
  section.Read("record_every", dispatch.record_every, 1, 100000);
  section.Read("idle_interval", dispatch.idle_interval);
  section.Read("dead_letter", dispatch.dead_letter);
  section.Read("dead_letter_interval", dispatch.dead_letter_interval);
  section.Read("link_base", dispatch.link_base);
  section.Read("throttle_budget", dispatch.throttle_budget);
  if (section.Has("tenant_budget")) {
    MapReader budget = section.Child("tenant_budget");
    budget.Read("per_hour", dispatch.budget.per_hour, 1, 1000000);
    budget.Finish();
  }
  if (dispatch.lease < std::chrono::seconds(1)) section.Fail("lease", "must be at least 1s");
  if (dispatch.dead_letter_interval < std::chrono::seconds(1) ||
      dispatch.dead_letter_interval > std::chrono::hours(24)) {
    section.Fail("dead_letter_interval", "must be between 1s and 24h");
  }
  if (dispatch.throttle_budget < std::chrono::seconds(1) ||
      dispatch.throttle_budget > std::chrono::hours(24 * 7)) {
    section.Fail("throttle_budget", "must be between 1s and 168h");
  }
  section.Finish();
}

void CheckRoutes(MapReader& top, Config& config) {
  if (config.channels.empty()) return;
  std::set<std::string, std::less<>> names;
  for (const ChannelConfig& channel : config.channels) names.insert(channel.name);
  // Every tier channel is configured. A grouped one groups its tier's opens like any other
  // rows: each waits in its group until its tier is due (or is cancelled by an ack).
  auto check_tiers = [&](const core::ConditionCommon& common, const std::string& where,
                         const std::vector<core::EscalationTier>& tiers) {
    for (const core::EscalationTier& tier : tiers) {
      for (const std::string& channel : tier.channels) {
        if (!names.contains(channel)) {
          std::string what = "condition \"" + common.name + "\"";
          what.append(where).append(" escalates to channel \"").append(channel);
          top.Fail("conditions", what.append("\", which is not in `channels`"));
        }
      }
    }
  };
  auto check = [&](const core::ConditionCommon& common) {
    check_tiers(common, "", common.escalation);
    // With escalation, the flat channels (the defaults' perhaps) are not used.
    for (const std::string& channel :
         common.escalation.empty() ? common.channels : std::vector<std::string>{}) {
      if (!names.contains(channel)) {
        top.Fail("conditions", "condition \"" + common.name + "\" routes to channel \"" + channel +
                                   "\", which is not in `channels`");
      }
    }
    for (size_t i = 0; i < common.routes.size(); ++i) {
      check_tiers(common, " route[" + std::to_string(i) + "]", common.routes[i].escalation);
      for (const std::string& channel : common.routes[i].channels) {
        if (!names.contains(channel)) {
          top.Fail("conditions", "condition \"" + common.name + "\" route[" + std::to_string(i) +
                                     "] routes to channel \"" + channel +
                                     "\", which is not in `channels`");
        }
      }
    }
  };
  for (const auto& condition : config.error_conditions) check(condition.common);
  for (const auto& condition : config.metric_conditions) check(condition.condition.common);
  for (const auto& condition : config.push_conditions) check(condition.common);
  for (const auto& entry : config.sentry_conditions) check(entry.condition.common);
  for (const auto& entry : config.datadog_conditions) check(entry.condition.common);
  if (!config.dispatch.dead_letter.empty() && !names.contains(config.dispatch.dead_letter)) {
    top.Fail("dispatch", "dead_letter names channel \"" + config.dispatch.dead_letter +
                             "\", which is not in `channels`");
  }
}

void ReadMetaChannels(MapReader& top, Config& config) {
  top.ReadNameList("meta_channels", config.meta_channels);
  for (const std::string& name : config.meta_channels) {
    const bool known = std::any_of(config.channels.begin(), config.channels.end(),
                                   [&](const ChannelConfig& c) { return c.name == name; });
    if (!known) {
      top.Fail("meta_channels", "names channel \"" + name + "\", which is not in `channels`");
    }
  }
}

}  // namespace quell::config
