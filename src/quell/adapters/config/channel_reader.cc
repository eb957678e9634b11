#include "quell/adapters/config/channel_reader.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "quell/adapters/channels/channel_reading.h"
#include "quell/adapters/channels/channel_registry.h"

namespace quell::config {
namespace {

// "webhook, slack, ... or mattermost": every type in the channel registry, in its order.
std::string TypeList() {
  const std::vector<std::string_view> names = channels::ChannelTypeNames();
  std::string list;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) list += i + 1 == names.size() ? " or " : ", ";
    list += names[i];
  }
  return list;
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

}  // namespace

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
    channels::ChannelReading reading{.item = item,
                                     .dir = dir,
                                     .name = channel.name,
                                     .unresolved = channel.unresolved_secrets,
                                     .callbacks = channel.unresolved_callbacks,
                                     .warnings = config.warnings};
    if (auto settings = channels::ReadChannelSettings(type, reading)) {
      channel.settings = std::move(*settings);
    } else {
      item.Fail("type", "expected " + TypeList() + ", got \"" + type + "\"");
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
