#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "quell/adapters/channels/channel_registry.h"
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
  // Members a group message lists before "… and N more"; 0: the type's default (its kind's
  // kGroupLimit in the channel registry). Counts always cover every member.
  uint32_t group_limit = 0;
  std::map<std::string, std::string> templates;  // part ("subject", "body", ...) -> mustache text
  // part -> "file:line:column: channels[i].templates.part", for template errors
  std::map<std::string, std::string> template_where;
  // group_by / group_wait / group_interval; nullopt (no group_by): one message per transition.
  std::optional<core::GroupPolicy> grouping;
};

// One configured channel: its name, the delivery settings every type shares and its type's
// own settings, read by that type's reader from the channel registry
// (adapters/channels/channel_registry.h), which also builds the channel from them.
struct ChannelConfig {
  std::string name;
  std::string where;  // "file:line:column: channels[i]", for problems found when it is built
  ChannelDelivery delivery;
  channels::ChannelSettings settings;  // which alternative it holds is the channel's type
  // Located messages for secrets whose variable is unset or whose file cannot be read: the
  // poller routes to the channel without them; `quell dispatch` refuses to start.
  std::vector<std::string> unresolved_secrets;
  // Those of them a callback needs (Slack's signing secret, PagerDuty's webhook secret):
  // `quell run` refuses to start with them even with --no-dispatch, since its HTTP surface
  // checks the callbacks.
  std::vector<std::string> unresolved_callbacks;

  // The YAML `type:` ("webhook", "slack", ...).
  std::string_view type() const { return channels::ChannelTypeOf(settings); }
  // The settings as their type's (std::bad_variant_access when the channel is of another).
  template <typename Settings>
  const Settings& As() const {
    return std::get<Settings>(settings);
  }
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
